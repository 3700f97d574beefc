// verifyApprovals: may this manifest be sent under this policy with these approvals? Pure: the caller
// rebuilds the manifest from the journal and takes the people and the policy from the verified control chain
// (main/trust/control-state.ts), so the policy and the people are vouched for before this is asked.
// Each approval is checked on its own (its reasons are all reported); then:
// - a signature that does not verify, an unknown signer, or an approval of another subject or profile
//   (replayed) is ignored and raised as an alarm: someone put it there, and it must not let anyone stop a
//   payout for good by writing one bad row;
// - a valid rejection by an approver refuses it;
// - otherwise it goes when the distinct approvers counted reach the number the policy requires. An approval
//   not counted (manifest changed since, policy changed since, signer revoked, not an approver when they
//   signed or when it was recorded, signed before the payout was prepared, the preparer approving their own
//   work) is void, and the refusal names the first such reason.
import { heldRoleAt, type Person } from '../people/roles';
import { approvalSignatureValid, type ApprovalRecord } from './approval';
import { manifestDigest, sameSubject, subjectText, type Manifest } from './manifest';
import { requiredApprovals, type ApprovalPolicy, type Requirement } from './policy';

export type RefusalCode =
  | 'POLICY_INVALID' | 'MISSING_APPROVALS' | 'FORGED' | 'REPLAYED' | 'MANIFEST_CHANGED' | 'POLICY_CHANGED'
  | 'SIGNER_NOT_APPROVER' | 'SIGNER_REVOKED' | 'SELF_APPROVAL' | 'SIGNED_OUT_OF_TIME' | 'REJECTED';

export type ApprovalStatus = 'counted' | 'duplicate' | RefusalCode;

export interface ApprovalCheck {
  approvalId: string;
  signerId: string;
  decision: ApprovalRecord['decision'];
  status: ApprovalStatus;
  message: string;
}

export interface Verdict {
  ok: boolean;
  /** Set when !ok. */
  code: RefusalCode | null;
  message: string;
  requirement: Requirement;
  /** Person ids of the approvals counted. */
  approvedBy: string[];
  checks: ApprovalCheck[];
  /** Approvals ignored because someone put them there (FORGED, REPLAYED): raise an alarm, audit them. */
  ignored: ApprovalCheck[];
}

/** Statuses of approvals that are nobody's decision: ignored, never a reason to refuse. */
export const IGNORED: ReadonlySet<ApprovalStatus> = new Set(['FORGED', 'REPLAYED']);
/** How far apart two desks' clocks may be: a signing time may be this much before preparation or after now. */
const CLOCK_SKEW_MS = 5 * 60_000;

export interface VerifyOptions {
  /** Rows flagged by the payee book as a new payee or changed bank details. */
  newOrChangedPayees?: number;
  now?: number;
  /** The manifest's digest, when the caller computed it already (manifestDigests). */
  digest?: string;
}

function checkOne(a: ApprovalRecord, manifest: Manifest, digest: string, people: ReadonlyMap<string, Person>, policy: ApprovalPolicy, now: number): { status: ApprovalStatus; message: string } {
  const signer = people.get(a.signerId);
  if (!signer) return { status: 'FORGED', message: `approval ${a.id} is signed by no person of this desk (${a.signerId})` };
  if (!approvalSignatureValid(a, signer.publicKey)) return { status: 'FORGED', message: `the signature of ${signer.name} on approval ${a.id} does not verify: it was altered or forged` };
  if (a.profileId !== manifest.profileId || !sameSubject(a.subject, manifest.subject)) {
    return { status: 'REPLAYED', message: `approval ${a.id} by ${signer.name} was given for ${subjectText(a.subject)} of profile ${a.profileId}, not for this ${subjectText(manifest.subject)}` };
  }
  if (a.policyVersion !== policy.version) {
    return { status: 'POLICY_CHANGED', message: `${signer.name} decided under policy version ${a.policyVersion}; the policy is now version ${policy.version}, so that decision is void` };
  }
  if (a.manifestDigest !== digest) {
    return { status: 'MANIFEST_CHANGED', message: `what ${signer.name} signed is not what would be sent now: the ${manifest.subject.kind} changed after the decision` };
  }
  if (signer.revokedAt !== null && signer.revokedAt <= now) return { status: 'SIGNER_REVOKED', message: `${signer.name} was revoked; their decisions on payouts not yet sent died with it` };
  if (a.signedAt < manifest.preparedAt - CLOCK_SKEW_MS || a.signedAt > now + CLOCK_SKEW_MS) {
    return { status: 'SIGNED_OUT_OF_TIME', message: `${signer.name}'s signature is dated ${new Date(a.signedAt).toISOString()}, outside the time since the ${manifest.subject.kind} was prepared` };
  }
  if (!heldRoleAt(signer, 'approver', a.signedAt)) return { status: 'SIGNER_NOT_APPROVER', message: `${signer.name} did not hold the approver role when they signed` };
  // The signing time is the signer's to write; the time the store took it is not: the role must hold then too.
  if (a.recordedAt !== undefined && !heldRoleAt(signer, 'approver', a.recordedAt)) {
    return { status: 'SIGNER_NOT_APPROVER', message: `${signer.name} no longer held the approver role when their decision was recorded (${new Date(a.recordedAt).toISOString()})` };
  }
  if (manifest.preparedBy !== null && a.signerId === manifest.preparedBy) return { status: 'SELF_APPROVAL', message: `${signer.name} prepared this ${manifest.subject.kind} and cannot approve their own work` };
  if (a.decision === 'reject') return { status: 'REJECTED', message: `${signer.name} rejected it: ${a.reason ?? '(no reason given)'}` };
  return { status: 'counted', message: `approved by ${signer.name}` };
}

export function verifyApprovals(
  manifest: Manifest,
  approvals: readonly ApprovalRecord[],
  people: readonly Person[] | ReadonlyMap<string, Person>,
  policy: ApprovalPolicy,
  options: VerifyOptions = {},
): Verdict {
  const byId: ReadonlyMap<string, Person> = people instanceof Map ? people : new Map((people as readonly Person[]).map((p) => [p.id, p]));
  const requirement = requiredApprovals(policy, manifest, options.newOrChangedPayees ?? 0);
  let ignored: ApprovalCheck[] = [];
  const refuse = (code: RefusalCode, message: string, checks: ApprovalCheck[], approvedBy: string[] = []): Verdict => ({ ok: false, code, message, requirement, approvedBy, checks, ignored });

  if (policy.profileId !== manifest.profileId) return refuse('POLICY_INVALID', `The approval policy is profile ${policy.profileId}'s, not ${manifest.profileId}'s`, []);

  const now = options.now ?? Date.now();
  const digest = options.digest ?? manifestDigest(manifest);
  const approvedBy = new Set<string>();
  const checks = approvals.map((a): ApprovalCheck => {
    const { status, message } = checkOne(a, manifest, digest, byId, policy, now);
    const duplicate = status === 'counted' && approvedBy.has(a.signerId);
    if (status === 'counted') approvedBy.add(a.signerId);
    return { approvalId: a.id, signerId: a.signerId, decision: a.decision, status: duplicate ? 'duplicate' : status, message: duplicate ? `${message} (again: counted once)` : message };
  });
  const counted = [...approvedBy];
  ignored = checks.filter((c) => IGNORED.has(c.status));

  const rejection = checks.find((c) => c.status === 'REJECTED');
  if (rejection) return refuse('REJECTED', `Nothing was sent: ${rejection.message}`, checks, counted);
  if (counted.length >= requirement.required) {
    return { ok: true, code: null, message: requirement.required === 0 ? 'no approval needed' : `approved by ${counted.length} of ${requirement.required} needed`, requirement, approvedBy: counted, checks, ignored };
  }
  const needs = `needs ${requirement.required} approval${requirement.required === 1 ? '' : 's'} (${needText(requirement)}), has ${counted.length}`;
  const voided = checks.find((c) => c.status !== 'counted' && c.status !== 'duplicate' && !IGNORED.has(c.status));
  if (voided) return refuse(voided.status as RefusalCode, `Nothing was sent: it ${needs}; ${voided.message}`, checks, counted);
  return refuse('MISSING_APPROVALS', `Nothing was sent: it ${needs}`, checks, counted);
}

function needText(r: Requirement): string {
  const parts = r.perCurrency.filter((c) => c.approvals > 0).map((c) => `${c.total} ${c.currency}: ${c.approvals}`);
  if (r.payeeExtra > 0) parts.push(`new or changed payee: +${r.payeeExtra}`);
  return parts.join('; ') || 'policy';
}
