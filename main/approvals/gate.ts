// The approval gate: the one place that says whether a create may leave, for every create, a first send and
// a re-send of an unknown outcome alike (the engine asks it before any create and again right before each one
// leaves, DESIGN.md §4, last rule). With dual control on, the body that leaves is built from a row of the
// subject's manifest (every row, the preparer, the callback address) that:
//   - its preparer signed at submit (preparation.ts), a person of the verified control chain holding preparer;
//   - approvers of the chain signed under the policy in force (a first send), or, for a row that may already be
//     at the gateway, under the policy version their approvals were given under (its policy, not today's);
//   - equals, field for field, the row as the journal holds it at that moment: a row edited in the journal by
//     one byte is not sent (the caller holds it, or pauses its batch, and says why).
// Dual control is provably off only when the control chain, the rows from before it and this desk's keychain
// pin all say so (main/trust/control-state.ts); a chain that does not verify against the pin sends nothing.
// Approvals nobody could have given (a bad signature, an unknown signer, another subject's) are ignored and
// reported (onIgnored), never a reason to stop a payout for good.
// The calendar's rule is here too, dual control or not: a scheduled subject leaves only released and not before its
// time (releaseTimeProblem).
import { currencyDecimals } from '../domain/currencies';
import { describeExecution } from '../schedules/execution';
import type { ScheduleRecord } from '../schedules/schedule';
import { payoutFieldsOf, type PayoutFields } from '../domain/payout';
import { mayBeAtGateway } from '../domain/status';
import type { JournalPort, PaymentRecord } from '../journal';
import { heldRoleAt, type Person } from '../people/roles';
import { withKeptRejections } from './kept-rejections';
import type { ApprovalRecord } from './approval';
import { buildManifest, manifestDigests, manifestRowOf, parseDecimal, type Manifest, type ManifestRow, type ManifestSourceRow, type Subject } from './manifest';
import type { ApprovalPolicy } from './policy';
import { PREPARATION_VARIANT, preparationDigest, preparationSignatureValid, type PreparationRecord } from './preparation';
import type { ApprovalStore } from './approval-store';
import { verifyApprovals, type ApprovalCheck, type RefusalCode, type Verdict } from './verify';

/**
 * What the gate reads of the control records as this desk verified them against its pin (trust/control-state.ts's
 * ControlState is one): who is who, the policies, and why nothing may be sent now, if so.
 */
export interface GateControl {
  enforced: boolean;
  /** What approvals and policies are bound to: the chain's scope, else the profile id. */
  scope: string;
  people: Person[];
  policy: ApprovalPolicy;
  policies: ApprovalPolicy[];
  defaultPolicy: ApprovalPolicy;
  chain: { fingerprint: string } | null;
  /** A chain that does not verify against the pin (its code: trust/control-state.ts TrustProblemCode). */
  problem: { code: string; message: string } | null;
  pin: { confirmed: boolean } | null;
}

/** The gate's own refusals, the approvals' (verify.ts), or a control problem's code (GateControl.problem). */
export type GateCode = RefusalCode | 'NOT_FOUND' | 'CHECK_FAILED' | 'NOT_PREPARED' | 'ROOT_UNCONFIRMED' | (string & {});

export interface GateDecision {
  ok: boolean;
  /** False when dual control is provably off on this desk (nothing was checked). */
  enforced: boolean;
  code: GateCode | null;
  message: string;
  verdict: Verdict | null;
  /** With a yes: asked again right before each create leaves (see GateClearance). */
  clearance?: GateClearance;
}

/** 'first': some create of the subject would be its first (today's policy); 'resend': only re-sends of unknown outcomes. */
export type GateNeed = 'first' | 'resend';

export interface ApprovalGate {
  check(subject: Subject, need?: GateNeed): Promise<GateDecision>;
  /** Why the subject as the journal holds it is not what its preparer signed; null when it is, or dual control is off. */
  preparationProblem(subject: Subject): Promise<string | null>;
}

/** What a yes holds for (engine/ports.ts ApprovalClearance): the store as it was, the rows as they were approved. */
export interface GateClearance {
  stillValid(): boolean;
  /** The body to send for the row as the journal holds it now, built from the approved manifest row; null: not this. */
  bodyFor(row: PaymentRecord): PayoutFields | null;
}

/**
 * Decimals the manifest writes amounts with: ISO 4217, a fixed table, so the digest an approver signed
 * never depends on whether the gateway's currency list could be read at the moment of checking. The
 * journal's integer minor units are what the manifest pins; the decimals only say how they are written.
 */
export const manifestDecimals = (currencyCode: string): number => currencyDecimals(currencyCode);

/** The manifest of a subject as the journal holds it now; undefined when there is no such subject. */
export async function manifestFromJournal(journal: JournalPort, scope: string, subject: Subject, policyVersion: number): Promise<Manifest | undefined> {
  const preparation = await journal.preparation(subject.kind, subject.id);
  if (!preparation) return undefined;
  const fileSha256 = subject.kind === 'batch' ? ((await journal.getBatch(subject.id))?.sha256 ?? null) : null;
  const rows = await journal.manifestRows(subject.kind, subject.id);
  if (rows.length === 0 && subject.kind === 'payout') return undefined;
  const execution = await journal.schedule(subject.kind, subject.id);
  const possibleDuplicates = await journal.possibleDuplicateIds(subject.kind, subject.id);
  return buildManifest({
    profileId: scope, subject, preparedBy: preparation.preparedBy, preparedAt: preparation.preparedAt, fileSha256, rows, decimalsOf: manifestDecimals, policyVersion, execution, possibleDuplicates,
  });
}

/**
 * Whether the preparer named by the manifest signed exactly this manifest (policy aside) while holding the
 * preparer role; null when so, else why not.
 */
export function preparationProblem(manifest: Manifest, preparations: readonly PreparationRecord[], people: GateControl['people'], computed?: string): string | null {
  const what = `${manifest.subject.kind} ${manifest.subject.id}`;
  if (manifest.preparedBy === null) return `Nothing was sent: ${what} names no preparer, and with dual control on everything sent is prepared by a person who signs it`;
  const preparer = people.find((p) => p.id === manifest.preparedBy);
  if (!preparer) return `Nothing was sent: ${what} names a preparer who is no person of the control records (${manifest.preparedBy})`;
  const digest = computed ?? preparationDigest(manifest);
  const mine = preparations.filter((p) => p.signerId === preparer.id && p.subject.kind === manifest.subject.kind && p.subject.id === manifest.subject.id);
  if (mine.length === 0) return `Nothing was sent: ${preparer.name} has not signed ${what} as its preparer`;
  const signed = mine.filter((p) => p.profileId === manifest.profileId && preparationSignatureValid(p, preparer.publicKey));
  if (signed.length === 0) return `Nothing was sent: the preparer's signature on ${what} does not verify`;
  // The preparer's newest signature is what counts: one made again (the date moved) supersedes the earlier ones, so the
  // subject put back as first signed (its old time) is not what was prepared.
  const newest = Math.max(...signed.map((p) => p.signedAt));
  const same = signed.filter((p) => p.digest === digest && p.signedAt === newest);
  if (same.length === 0 && signed.some((p) => p.digest === digest)) {
    return `Nothing was sent: ${what} is as ${preparer.name} first prepared it, not as they signed it since (its date was moved)`;
  }
  if (same.length === 0) return `Nothing was sent: ${what} is not what ${preparer.name} prepared (a row, its callback address or the preparer changed since)`;
  const held = same.some((p) => heldRoleAt(preparer, 'preparer', p.signedAt) && (p.recordedAt === undefined || heldRoleAt(preparer, 'preparer', p.recordedAt)));
  if (!held) return `Nothing was sent: ${preparer.name} did not hold the preparer role when preparing ${what}`;
  return null;
}

export interface GateDeps {
  journal: JournalPort;
  repository: ApprovalStore;
  /** The control state as this desk may believe it (the chain checked against its pin). */
  control: () => Promise<GateControl>;
  /** Rows of the subject flagged as a new payee or changed bank details (the payee book). */
  newOrChangedPayees?: (manifest: Manifest) => Promise<number> | number;
  /** Synchronous marker of what newOrChangedPayees rests on (the payee book in force): part of the clearance. */
  payeesMarker?: () => string;
  /** A sender desk of a team database: the chain's root must be confirmed by a person before anything leaves. */
  requireConfirmedRoot?: () => boolean;
  /** Approvals ignored (forged, replayed): the caller raises the alarm and audits each once. */
  onIgnored?: (subject: Subject, ignored: readonly ApprovalCheck[]) => Promise<void> | void;
  /** Rejections this desk signed, kept out of the store's reach (approvals/kept-rejections.ts): a "no" deleted there still holds. */
  keptRejections?: (subject: Subject) => Promise<readonly ApprovalRecord[]>;
  now?: () => number;
}

export function journalApprovalGate(deps: GateDeps): ApprovalGate {
  const markerNow = (): string => `${deps.repository.changeMarker()}|${deps.payeesMarker?.() ?? ''}`;
  return {
    async preparationProblem(subject) {
      const state = await deps.control();
      if (state.problem) return state.problem.message;
      if (!state.enforced) return null;
      const manifest = await manifestFromJournal(deps.journal, state.scope, subject, state.policy.version);
      if (!manifest) return `no ${subject.kind} ${subject.id} in the journal`;
      return preparationProblem(manifest, await deps.repository.preparationsFor(subject), state.people);
    },
    async check(subject, need = 'first') {
      try {
        // Taken before anything is read: a write during the check already makes the yes stale.
        const marker = markerNow();
        const unchanged = (): boolean => markerNow() === marker;
        // The calendar, with dual control on or off: nothing scheduled leaves before its time or unreleased.
        const early = releaseTimeProblem(await deps.journal.schedule(subject.kind, subject.id), subject, (deps.now ?? Date.now)());
        if (early) return { ok: false, enforced: true, code: early.code, message: early.message, verdict: null };
        const state = await deps.control();
        if (state.problem) return { ok: false, enforced: true, code: state.problem.code, message: state.problem.message, verdict: null };
        if (!state.enforced) {
          return { ok: true, enforced: false, code: null, message: 'dual control is not set up on this desk', verdict: null, clearance: { stillValid: unchanged, bodyFor: (row) => payoutFieldsOf(row) } };
        }
        if (deps.requireConfirmedRoot?.() && state.pin?.confirmed !== true) {
          return {
            ok: false, enforced: true, code: 'ROOT_UNCONFIRMED', verdict: null,
            message: `Nothing was sent: this desk has not confirmed the team's dual-control root ${state.chain?.fingerprint ?? ''} with the team's admin; compare it and confirm it (profiles team trust, or Settings › Team database)`,
          };
        }
        const manifest = await manifestFromJournal(deps.journal, state.scope, subject, state.policy.version);
        if (!manifest) return { ok: false, enforced: true, code: 'NOT_FOUND', message: `Nothing was sent: no ${subject.kind} ${subject.id} in the journal`, verdict: null };
        // Both digests in one pass over the rows (the rows are almost all of a big batch's bytes).
        const [digest, prepared] = manifestDigests(manifest, [{}, PREPARATION_VARIANT]);
        const unprepared = preparationProblem(manifest, await deps.repository.preparationsFor(subject), state.people, prepared);
        if (unprepared) return { ok: false, enforced: true, code: 'NOT_PREPARED', message: unprepared, verdict: null };
        const kept = withKeptRejections(await deps.repository.approvalsFor(subject), deps.keptRejections ? await deps.keptRejections(subject) : []);
        const approvals = kept.approvals;
        const flagged = deps.newOrChangedPayees ? await deps.newOrChangedPayees(manifest) : 0;
        const now = (deps.now ?? Date.now)();
        const first = verifyApprovals(manifest, approvals, state.people, state.policy, { now, newOrChangedPayees: flagged, ...(digest ? { digest } : {}) });
        if (first.ignored.length > 0) await deps.onIgnored?.(subject, first.ignored);
        const approvedRows = rowsAsApproved(manifest);
        if (first.ok) return { ok: true, enforced: true, code: null, message: first.message, verdict: first, clearance: { stillValid: unchanged, bodyFor: approvedRows } };
        // A first send rests on today's policy; a re-send of an unknown outcome on the one its approvals were given under.
        const resend = need === 'resend' ? resendVerdict(manifest, approvals, state, { now, newOrChangedPayees: flagged }) : null;
        if (!resend) return { ok: false, enforced: true, code: first.code, message: withMissingNote(first, kept.missing), verdict: first };
        return {
          ok: true, enforced: true, code: null, verdict: resend,
          message: `${resend.message} under policy version ${resend.policyVersion}, which its approvals were given under: only rows that may be at the gateway already are sent again`,
          clearance: { stillValid: unchanged, bodyFor: (row) => (mayBeAtGateway(row) ? approvedRows(row) : null) },
        };
      } catch (error) {
        // Fail closed: approvals that cannot be checked are not there.
        const reason = error instanceof Error ? error.message : String(error);
        return { ok: false, enforced: true, code: 'CHECK_FAILED', message: `Nothing was sent: the approvals could not be checked (${reason})`, verdict: null };
      }
    },
  };
}

/**
 * Why a scheduled subject may not leave now, or null: it leaves only once a desk released its schedule, and never
 * before its time (the time is also signed in the manifest, so a row moved earlier in the journal voids the approvals).
 */
export function releaseTimeProblem(schedule: ScheduleRecord | undefined, subject: Subject, now: number): { code: 'NOT_RELEASED' | 'NOT_DUE' | 'SCHEDULE_CANCELLED'; message: string } | null {
  if (!schedule) return null;
  const what = `${subject.kind} ${subject.id}`;
  const when = describeExecution(schedule);
  if (schedule.state === 'CANCELLED') return { code: 'SCHEDULE_CANCELLED', message: `Nothing was sent: the schedule of ${what} was cancelled` };
  if (now < schedule.at) return { code: 'NOT_DUE', message: `Nothing was sent: ${what} is scheduled for ${when} and does not leave before then` };
  if (schedule.state !== 'RELEASED') {
    const why = schedule.state === 'LATE' ? 'it is past its late window and waits for a person to confirm its release' : 'no sender desk has released it yet';
    return { code: 'NOT_RELEASED', message: `Nothing was sent: ${what} was scheduled for ${when} and ${why}` };
  }
  return null;
}

/** Says so when the rejection that refuses was deleted from the store and holds by this desk's kept copy. */
function withMissingNote(verdict: Verdict, missing: readonly ApprovalRecord[]): string {
  const rejection = verdict.checks.find((c) => c.status === 'REJECTED');
  if (!rejection || !missing.some((m) => m.id === rejection.approvalId)) return verdict.message;
  return `${verdict.message} (this desk's own copy of that rejection: it was deleted from the journal or the team database)`;
}

/**
 * A row that may already be at the gateway is sent again under the policy its approvals were given under: the
 * first version named by the subject's approvals (older than today's) under which they reach its requirement.
 */
function resendVerdict(manifest: Manifest, approvals: readonly ApprovalRecord[], state: GateControl, options: { now: number; newOrChangedPayees: number }): (Verdict & { policyVersion: number }) | null {
  const named = [...new Set(approvals.map((a) => a.policyVersion))].filter((v) => v !== state.policy.version).sort((a, b) => a - b);
  for (const version of named) {
    // Version 0 is the built-in policy, in force until the chain's first version.
    const policy: ApprovalPolicy | undefined = version === 0 ? state.defaultPolicy : state.policies.find((p) => p.version === version);
    if (!policy) continue;
    const verdict = verifyApprovals({ ...manifest, policyVersion: version }, approvals, state.people, policy, options);
    if (verdict.ok) return { ...verdict, policyVersion: version };
  }
  return null;
}

/** The manifest row a journal row is sent as: the row must be, field for field, the row approved. */
function rowsAsApproved(manifest: Manifest): (row: PaymentRecord) => PayoutFields | null {
  const approved = new Map(manifest.rows.map((r) => [r.id, r]));
  return (row) => {
    const decimals = manifest.decimals[row.currencyCode];
    const signed = approved.get(row.id);
    if (decimals === undefined || !signed) return null;
    if (JSON.stringify(manifestRowOf(row as ManifestSourceRow, decimals)) !== JSON.stringify(signed)) return null;
    return fieldsOf(signed, decimals);
  };
}

/** The payout fields as the signed row states them (its amount read back from the decimal text signed). */
function fieldsOf(row: ManifestRow, decimals: number): PayoutFields {
  return payoutFieldsOf({
    amountMinor: parseDecimal(row.amount, decimals), currencyCode: row.currency, accountName: row.payeeName, accountNumber: row.account,
    paymentOperatorCode: row.operator, paymentMethodCode: row.method, emailAddress: row.email, callbackUrl: row.callbackUrl || null,
  });
}
