// The approval gate: before the first create of a payout or of a batch's rows, the manifest is rebuilt
// from the journal's rows as they are now (a row edited after approval gives another digest), and the
// approvals stored for it are verified against the people and the policy in force. The engine calls it
// (PayoutEngineOptions.approvalGate) and, on a refusal, sends nothing, holds or pauses with the reason,
// and audits it.
//
// Dual control is enforced once the desk has a person or a policy version of its own. A desk with
// neither (every desk before this feature, and TEST desks that never set it up) sends as it did; the
// first person added turns it on for good (the people table is only ever added to).
import { currencyDecimals } from '../domain/currencies';
import type { JournalPort } from '../journal';
import { buildManifest, manifestRowOf, type Manifest, type ManifestSourceRow, type Subject } from './manifest';
import { defaultPolicy, type ApprovalPolicy, type PolicyEnvironment } from './policy';
import type { DualControlRepository } from './repository';
import { verifyApprovals, type RefusalCode, type Verdict } from './verify';

export interface GateDecision {
  ok: boolean;
  /** False when dual control is not set up on this desk (nothing was checked). */
  enforced: boolean;
  code: RefusalCode | 'NOT_FOUND' | 'CHECK_FAILED' | null;
  message: string;
  verdict: Verdict | null;
  /** With a yes: asked again right before each create leaves (see GateClearance). */
  clearance?: GateClearance;
}

export interface ApprovalGate {
  check(subject: Subject): Promise<GateDecision>;
}

/** What a yes holds for (engine/ports.ts ApprovalClearance): the store as it was, the rows as they were. */
export interface GateClearance {
  stillValid(): boolean;
  covers(row: ManifestSourceRow): boolean;
}

/**
 * Decimals the manifest writes amounts with: ISO 4217, a fixed table, so the digest an approver signed
 * never depends on whether the gateway's currency list could be read at the moment of checking. The
 * journal's integer minor units are what the manifest pins; the decimals only say how they are written.
 */
export const manifestDecimals = (currencyCode: string): number => currencyDecimals(currencyCode);

/** The manifest of a subject as the journal holds it now; undefined when there is no such subject. */
export async function manifestFromJournal(journal: JournalPort, profileId: string, subject: Subject, policyVersion: number): Promise<Manifest | undefined> {
  const preparation = await journal.preparation(subject.kind, subject.id);
  if (!preparation) return undefined;
  const fileSha256 = subject.kind === 'batch' ? ((await journal.getBatch(subject.id))?.sha256 ?? null) : null;
  const rows = await journal.manifestRows(subject.kind, subject.id);
  if (rows.length === 0 && subject.kind === 'payout') return undefined;
  return buildManifest({
    profileId, subject, preparedBy: preparation.preparedBy, preparedAt: preparation.preparedAt, fileSha256, rows, decimalsOf: manifestDecimals, policyVersion,
  });
}

export interface DualControlState {
  enforced: boolean;
  policy: ApprovalPolicy;
  people: Awaited<ReturnType<DualControlRepository['listPeople']>>;
}

/** The people and the policy in force (the stored newest version, else the environment's default). */
export async function dualControlState(repository: DualControlRepository, profileId: string, environment: PolicyEnvironment): Promise<DualControlState> {
  const [people, stored] = await Promise.all([repository.listPeople(), repository.currentPolicy()]);
  return { enforced: people.length > 0 || stored !== null, policy: stored ?? defaultPolicy(profileId, environment), people };
}

export function journalApprovalGate(deps: {
  profileId: string;
  environment: PolicyEnvironment;
  journal: JournalPort;
  repository: DualControlRepository;
  /** Rows of the subject flagged as a new payee or changed bank details (the payee book). */
  newOrChangedPayees?: (manifest: Manifest) => Promise<number> | number;
  /** Synchronous marker of what newOrChangedPayees rests on (the payee book in force): part of the clearance. */
  payeesMarker?: () => string;
  now?: () => number;
}): ApprovalGate {
  return {
    async check(subject) {
      try {
        // Taken before anything is read: a write during the check already makes the yes stale.
        const markerNow = (): string => `${deps.repository.changeMarker()}|${deps.payeesMarker?.() ?? ''}`;
        const marker = markerNow();
        const unchanged = (): boolean => markerNow() === marker;
        const state = await dualControlState(deps.repository, deps.profileId, deps.environment);
        if (!state.enforced) {
          return { ok: true, enforced: false, code: null, message: 'dual control is not set up on this desk', verdict: null, clearance: { stillValid: unchanged, covers: () => true } };
        }
        const manifest = await manifestFromJournal(deps.journal, deps.profileId, subject, state.policy.version);
        if (!manifest) return { ok: false, enforced: true, code: 'NOT_FOUND', message: `Nothing was sent: no ${subject.kind} ${subject.id} in the journal`, verdict: null };
        const approvals = await deps.repository.approvalsFor(subject);
        const verdict = verifyApprovals(manifest, approvals, state.people, state.policy, {
          now: (deps.now ?? Date.now)(),
          newOrChangedPayees: deps.newOrChangedPayees ? await deps.newOrChangedPayees(manifest) : 0,
        });
        if (!verdict.ok) return { ok: false, enforced: true, code: verdict.code, message: verdict.message, verdict };
        return { ok: true, enforced: true, code: verdict.code, message: verdict.message, verdict, clearance: { stillValid: unchanged, covers: rowsAsApproved(manifest) } };
      } catch (error) {
        // Fail closed: approvals that cannot be checked are not there.
        const reason = error instanceof Error ? error.message : String(error);
        return { ok: false, enforced: true, code: 'CHECK_FAILED', message: `Nothing was sent: the approvals could not be checked (${reason})`, verdict: null };
      }
    },
  };
}

/**
 * Whether a row about to be sent is, field for field, a row of the approved manifest: what leaves is what
 * was signed, even if the journal's row changed between the check and the send.
 */
function rowsAsApproved(manifest: Manifest): (row: ManifestSourceRow) => boolean {
  const approved = new Map(manifest.rows.map((r) => [r.id, JSON.stringify(r)]));
  return (row) => {
    const decimals = manifest.decimals[row.currencyCode];
    return decimals !== undefined && approved.get(row.id) === JSON.stringify(manifestRowOf(row, decimals));
  };
}
