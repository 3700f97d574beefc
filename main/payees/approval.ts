// Approving a change of a payee's bank details: a person's Ed25519 signature over the change's digest
// (payee.ts changeDigest), the payee and version, the policy version and their decision, in the same
// canonical JSON as batch and payout approvals but with a purpose of its own, so a payee approval can
// never pass for a payout's (and the payout gate and verify.ts are unchanged).
//
// How many: on a desk with dual control, the policy's newOrChangedPayee, at least 1; without dual
// control, none (the change is in force at once). Who: a person holding the approver role when signing,
// not revoked, not the one who made the change. A valid rejection by an approver closes the change.
import { createHash } from 'node:crypto';
import { canonicalBytes } from '../approvals/canonical';
import type { ApprovalPolicy } from '../approvals/policy';
import type { UnlockedSession } from '../people/key-vault';
import { personSignatureValid } from '../people/person-key';
import { heldRoleAt, type Person } from '../people/roles';
import type { PayeeVersion } from './payee';
import { plural } from '../../contract/plural';

export type PayeeDecision = 'approve' | 'reject';

export interface PayeeApprovalRecord {
  id: string;
  profileId: string;
  payeeId: string;
  payeeVersion: number;
  changeDigest: string;
  policyVersion: number;
  decision: PayeeDecision;
  reason: string | null;
  signerId: string;
  signedAt: number;
  /** Ed25519 over payeeApprovalSigningBytes, base64. */
  signature: string;
}

export function payeeApprovalSigningBytes(a: Omit<PayeeApprovalRecord, 'signature'>): Buffer {
  return canonicalBytes({
    purpose: 'payout-desk/payee-approval',
    version: 1,
    approval: {
      id: a.id, profileId: a.profileId, payeeId: a.payeeId, payeeVersion: a.payeeVersion, changeDigest: a.changeDigest, policyVersion: a.policyVersion,
      decision: a.decision, reason: a.reason, signerId: a.signerId, signedAt: a.signedAt,
    },
  });
}

export function signPayeeApproval(session: UnlockedSession, input: Omit<PayeeApprovalRecord, 'signature' | 'signerId'>): PayeeApprovalRecord {
  const unsigned = { ...input, reason: input.reason?.trim() || null, signerId: session.personId };
  return { ...unsigned, signature: session.sign(payeeApprovalSigningBytes(unsigned)) };
}

/** Approvals a change of bank details needs: none without dual control; else the policy's count, at least 1. */
export function payeeApprovalsRequired(enforced: boolean, policy: ApprovalPolicy): number {
  return enforced ? Math.max(1, policy.rules.newOrChangedPayee) : 0;
}

export type PayeeApprovalStatus = 'counted' | 'duplicate' | 'FORGED' | 'REPLAYED' | 'CHANGE_ALTERED' | 'POLICY_CHANGED' | 'SIGNER_REVOKED' | 'SIGNER_NOT_APPROVER' | 'SELF_APPROVAL' | 'REJECTED';

export interface PayeeVerdict {
  /** Enough approvals are counted and nobody rejected it. */
  ok: boolean;
  rejected: boolean;
  required: number;
  approvedBy: string[];
  checks: { approvalId: string; signerId: string; status: PayeeApprovalStatus; message: string }[];
  message: string;
}

/**
 * Signatures already checked, by a digest of key, signature and signed bytes: the payee book is checked at
 * every read (book.ts), and an Ed25519 verify per approved change of a 10,000-payee book would stall the gate.
 * Only what was checked is remembered; the answer for the same three inputs cannot change.
 */
const checkedSignatures = new Map<string, boolean>();
const CHECKED_MAX = 50_000;

function signatureHolds(a: PayeeApprovalRecord, publicKey: string): boolean {
  const bytes = payeeApprovalSigningBytes(a);
  const key = createHash('sha256').update(publicKey).update('\n').update(a.signature).update('\n').update(bytes).digest('base64');
  const known = checkedSignatures.get(key);
  if (known !== undefined) return known;
  const valid = personSignatureValid(bytes, a.signature, publicKey);
  if (checkedSignatures.size >= CHECKED_MAX) checkedSignatures.clear();
  checkedSignatures.set(key, valid);
  return valid;
}

/**
 * May this change be put in force (or count as in force)? `digest` is the change's digest recomputed from the
 * stored rows now (a row altered since signing gives another); `people` everyone of the verified control chain;
 * `policy` a version of the chain (vouched for by its records, so not checked again here).
 */
export function verifyPayeeChange(
  profileId: string,
  change: PayeeVersion,
  digest: string,
  approvals: readonly PayeeApprovalRecord[],
  people: readonly Person[],
  policy: ApprovalPolicy,
  required: number,
): PayeeVerdict {
  const byId = new Map(people.map((p) => [p.id, p]));
  const approvedBy = new Set<string>();
  const checks = approvals.map((a) => {
    const one = ((): { status: PayeeApprovalStatus; message: string } => {
      const signer = byId.get(a.signerId);
      if (!signer) return { status: 'FORGED', message: `approval ${a.id} is signed by no person of this desk` };
      if (!signatureHolds(a, signer.publicKey)) return { status: 'FORGED', message: `the signature of ${signer.name} on approval ${a.id} does not verify` };
      if (a.profileId !== profileId || a.payeeId !== change.payeeId || a.payeeVersion !== change.version) return { status: 'REPLAYED', message: `approval ${a.id} by ${signer.name} was given for another change` };
      if (a.changeDigest !== digest || change.changeDigest !== digest) return { status: 'CHANGE_ALTERED', message: `what ${signer.name} signed is not the change stored now` };
      if (a.policyVersion !== policy.version) return { status: 'POLICY_CHANGED', message: `${signer.name} decided under policy version ${a.policyVersion}; the policy is now version ${policy.version}` };
      if (signer.revokedAt !== null) return { status: 'SIGNER_REVOKED', message: `${signer.name} was revoked` };
      if (!heldRoleAt(signer, 'approver', a.signedAt)) return { status: 'SIGNER_NOT_APPROVER', message: `${signer.name} did not hold the approver role when they signed` };
      if (change.createdBy !== null && a.signerId === change.createdBy) return { status: 'SELF_APPROVAL', message: `${signer.name} made this change and cannot approve it` };
      if (a.decision === 'reject') return { status: 'REJECTED', message: `${signer.name} rejected it: ${a.reason ?? '(no reason given)'}` };
      return { status: 'counted', message: `approved by ${signer.name}` };
    })();
    const duplicate = one.status === 'counted' && approvedBy.has(a.signerId);
    if (one.status === 'counted') approvedBy.add(a.signerId);
    return { approvalId: a.id, signerId: a.signerId, status: duplicate ? ('duplicate' as const) : one.status, message: one.message };
  });
  const rejection = checks.find((c) => c.status === 'REJECTED');
  const counted = [...approvedBy];
  if (rejection) return { ok: false, rejected: true, required, approvedBy: counted, checks, message: rejection.message };
  const ok = counted.length >= required;
  return { ok, rejected: false, required, approvedBy: counted, checks, message: ok ? `approved by ${counted.length} of ${required} needed` : `needs ${plural(required, 'approval')}, has ${counted.length}` };
}
