// The payee book as it holds when read. A version's "in force" is a bare column (effective_at): anyone who can
// write the journal or the team database can mark a row in force. With dual control on, a version marked in
// force counts only when, recomputed from the stored rows and the verified control state, one of these holds:
//   - its bank details (account number, operator) are those of a trusted earlier version of the same payee;
//   - the approvals of its change verify (verifyPayeeChange over its change digest recomputed from the rows,
//     under the policy in force or an earlier version of the chain's that its approvals were given under);
//   - it is the payee's first version and its account is not a change against what the name (or the e-mail)
//     was paid to before, as the payee service decides when it is added.
// A trusted version is one that holds by the same rules (in force or closed since). The bank_change and
// change_digest columns are never believed. A version that does not hold is left out of the book (the payee
// is not in it) and reported once per version as it is stored. Without dual control the columns are the book.
//
// Cost: the gate reads this for every batch (100,000 rows, 10,000 saved payees). A version 1 that its payee's
// payouts vouch for needs nothing more; histories are read (500 payees a statement) for later versions, and
// approvals, digests and signatures only for versions no cheaper rule vouches for (a signature is checked
// once per process, approval.ts); the event loop gets a turn every PAYEES_PER_TURN versions (APPROVED_PER_TURN
// when their approvals are checked).
import type { ApprovalPolicy } from '../approvals/policy';
import type { Person } from '../people/roles';
import { payeeApprovalsRequired, verifyPayeeChange, type PayeeApprovalRecord, type PayeeVerdict } from './approval';
import { changeDigest, detailsOf, maskAccount, sameAccount, sameBankDetails, stateOf, type PayeeVersion } from './payee';
import type { PaidAccount, PayeeRepository } from './repository';

/** What the book is read against: the verified control state (main/trust ControlState has this shape). */
export interface BookControl {
  enforced: boolean;
  /** The chain does not hold: nothing is reported (that problem is raised on its own), nothing unproven counts. */
  problem: { message: string } | null;
  people: readonly Person[];
  policy: ApprovalPolicy;
  policies: readonly ApprovalPolicy[];
}

/** What an audit callback receives: the runtime's audit entry shape, without importing the desk. */
export interface BookAuditEntry {
  actor: string;
  action: string;
  subject: string;
  details: Record<string, unknown>;
}

export interface BookReading {
  /** The profile the change digests and payee approvals name (as the payee service writes them). */
  profileId: string;
  control: () => Promise<BookControl>;
  /** Records an audit entry (the desk's audit); called once per ignored version as stored. */
  audit?: (entry: BookAuditEntry) => Promise<void>;
}

export type Standing = { holds: true; by: 'details held before' | 'approvals' | 'first version' } | { holds: false; reason: string };

/** An in-force version's key in the standings: payee and version (two rows in force for one payee are two keys). */
export const versionKey = (v: Pick<PayeeVersion, 'payeeId' | 'version'>): string => `${v.payeeId}\u0000${v.version}`;

const PAYEES_PER_TURN = 500;
/** Versions judged by their approvals between two turns: the first time, a digest and an Ed25519 check each (about 0.1 ms). */
const APPROVED_PER_TURN = 100;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Accounts paid before, by name key and by e-mail key (the payouts being checked left out by the caller). */
export class PaidIndex {
  private readonly byName = new Map<string, PaidAccount[]>();
  private readonly byEmail = new Map<string, PaidAccount[]>();

  constructor(paid: readonly PaidAccount[]) {
    this.add(paid);
  }

  add(paid: readonly PaidAccount[]): void {
    for (const p of paid) {
      if (p.nameKey) PaidIndex.put(this.byName, p.nameKey, p);
      if (p.emailKey) PaidIndex.put(this.byEmail, p.emailKey, p);
    }
  }

  private static put(map: Map<string, PaidAccount[]>, key: string, p: PaidAccount): void {
    const list = map.get(key);
    if (list) list.push(p);
    else map.set(key, [p]);
  }

  /** The accounts paid to this name key or this e-mail key (each payout once); not to be changed by the caller. */
  of(nameKey: string, emailKey: string): PaidAccount[] {
    const named = this.byName.get(nameKey) ?? [];
    const mailed = emailKey ? (this.byEmail.get(emailKey) ?? []) : [];
    if (mailed.length === 0) return named;
    if (named.length === 0) return mailed;
    // Usually the same payouts under both keys: no new array then (this runs once per row of a batch).
    const seen = named.length > 16 ? new Set(named) : null;
    let extra: PaidAccount[] | null = null;
    for (const p of mailed) {
      if (seen ? seen.has(p) : named.includes(p)) continue;
      (extra ??= [...named]).push(p);
    }
    return extra ?? named;
  }
}

/** The service's rule for a new payee: paid before, and never to this account. */
export const accountDiffersFromPaid = (paid: readonly PaidAccount[], accountNumber: string): boolean => paid.length > 0 && !paid.some((p) => sameAccount(p.accountNumber, accountNumber));

/** The digest of a stored version as a change, recomputed from the stored rows (its base version's details); null when it cannot be. */
export function digestFromRows(profileId: string, v: PayeeVersion, history: readonly PayeeVersion[]): string | null {
  const base = v.baseVersion === null ? null : (history.find((x) => x.payeeId === v.payeeId && x.version === v.baseVersion) ?? null);
  try {
    return changeDigest({ profileId, payeeId: v.payeeId, version: v.version, before: base ? detailsOf(base) : null, after: detailsOf(v), createdBy: v.createdBy, createdAt: v.createdAt });
  } catch {
    // A row no signer could have signed (a time that is no safe integer): no digest, no approval.
    return null;
  }
}

/**
 * The approvals of a version, checked under the policy in force, else under an earlier version of the chain's
 * that they name (a change approved before the policy changed stays approved). The first verdict that holds,
 * else the one under the policy in force.
 */
export function approvalsVerdict(profileId: string, v: PayeeVersion, history: readonly PayeeVersion[], approvals: readonly PayeeApprovalRecord[], control: BookControl): PayeeVerdict {
  const digest = digestFromRows(profileId, v, history);
  const mine = approvals.filter((a) => a.payeeId === v.payeeId && a.payeeVersion === v.version);
  const under = (policy: ApprovalPolicy) =>
    digest === null
      ? { ok: false, rejected: false, required: payeeApprovalsRequired(true, policy), approvedBy: [], checks: [], message: 'its change digest cannot be computed from the stored row' }
      : verifyPayeeChange(profileId, v, digest, mine, control.people, policy, payeeApprovalsRequired(true, policy));
  const now = under(control.policy);
  if (now.ok || now.rejected) return now;
  const named = [...new Set(mine.map((a) => a.policyVersion))].filter((n) => n !== control.policy.version);
  for (const n of named) {
    const policy = control.policies.find((p) => p.version === n);
    if (!policy) continue;
    const then = under(policy);
    if (then.ok) return then;
  }
  return now;
}

export interface Judgement {
  standing: Standing;
  /** The approvals' verdict, when they were what decided. */
  verdict: PayeeVerdict | null;
}

/**
 * Which versions of one payee hold. `history`: every stored version of the payee; `approvals`: its approvals,
 * or null to try only the rules that need no signature (a version that fails them does not hold, yet); `paid`:
 * what its names and e-mails were paid to before.
 */
export function judgePayee(
  profileId: string,
  history: readonly PayeeVersion[],
  approvals: readonly PayeeApprovalRecord[] | null,
  paid: PaidIndex,
  control: BookControl,
): (v: PayeeVersion) => Judgement {
  const sorted = [...history].sort((a, b) => a.version - b.version);
  const memo = new Map<number, Judgement>();
  // Recursion only ever goes to lower versions, so it ends.
  const judge = (v: PayeeVersion): Judgement => {
    const known = memo.get(v.version);
    if (known) return known;
    const earlier = sorted.filter((e) => e.version < v.version);
    let result: Judgement;
    if (earlier.length === 0 && !accountDiffersFromPaid(paid.of(v.nameKey, v.emailKey), v.accountNumber)) {
      result = { standing: { holds: true, by: 'first version' }, verdict: null };
    } else if (earlier.some((e) => sameBankDetails(e, v) && judge(e).standing.holds)) {
      result = { standing: { holds: true, by: 'details held before' }, verdict: null };
    } else if (approvals === null) {
      result = { standing: { holds: false, reason: 'its approvals were not read' }, verdict: null };
    } else {
      const verdict = approvalsVerdict(profileId, v, sorted, approvals, control);
      result = verdict.ok ? { standing: { holds: true, by: 'approvals' }, verdict } : { standing: { holds: false, reason: reasonOf(v, earlier.length === 0, verdict) }, verdict };
    }
    memo.set(v.version, result);
    return result;
  };
  return judge;
}

function reasonOf(v: PayeeVersion, first: boolean, verdict: PayeeVerdict): string {
  const voided = verdict.checks.find((c) => c.status !== 'counted' && c.status !== 'duplicate');
  const why = voided ? `${verdict.message} (${voided.message})` : verdict.message;
  const what = first
    ? `${v.name}'s first version pays ${maskAccount(v.accountNumber)} (${v.operatorCode}), not an account ${v.name} was paid to before`
    : `version ${v.version} of ${v.name} pays ${maskAccount(v.accountNumber)} (${v.operatorCode}), which no trusted earlier version had`;
  return `${what}, and its change is not approved: ${why}`;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(key(item));
    if (list) list.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/** Reported versions, per repository (one per profile's store): each version as stored, once per process. */
const reported = new WeakMap<PayeeRepository, Set<string>>();

async function report(repo: PayeeRepository, reading: BookReading, v: PayeeVersion, reason: string): Promise<void> {
  if (!reading.audit) return;
  const seen = reported.get(repo) ?? new Set<string>();
  reported.set(repo, seen);
  const key = [v.payeeId, v.version, v.accountNumber, v.operatorCode, v.baseVersion, v.createdAt, v.createdBy, v.changeDigest].join('\u0000');
  if (seen.has(key)) return;
  seen.add(key);
  try {
    await reading.audit({
      actor: 'payees', action: 'payee.ignored', subject: v.payeeId,
      details: { name: v.name, version: v.version, account: maskAccount(v.accountNumber), operator: v.operatorCode, reason },
    });
  } catch (error) {
    seen.delete(key);
    throw error;
  }
}

export interface ReadBookOptions {
  /** What was paid before to the names and e-mails of these versions (read here when not given). */
  paid?: readonly PaidAccount[] | PaidIndex;
  /** Payouts left out of "paid before" when it is read here (the rows being checked). */
  excluding?: readonly string[];
  /** The control state already read for this check. */
  control?: BookControl;
  /** Every stored version of these payees, when the caller has read them (read here when not given). */
  history?: readonly PayeeVersion[];
}

/**
 * The standing of each version marked in force among `versions` (versions of any state may be passed: only
 * those in force are judged), by versionKey. Every one holds when dual control is off. Versions that do not
 * hold are audited (reading.audit), once each as stored, unless the control chain itself has a problem.
 */
export async function readBook(repo: PayeeRepository, reading: BookReading, versions: readonly PayeeVersion[], options: ReadBookOptions = {}): Promise<Map<string, Standing>> {
  const standings = new Map<string, Standing>();
  const marked = versions.filter((v) => stateOf(v) === 'in force');
  const control = options.control ?? (await reading.control());
  if (!control.enforced) {
    for (const v of marked) standings.set(versionKey(v), { holds: true, by: 'details held before' });
    return standings;
  }
  if (marked.length === 0) return standings;
  const paid = options.paid instanceof PaidIndex ? options.paid : new PaidIndex(options.paid ?? (await repo.paidBefore(marked.map((v) => v.nameKey), marked.map((v) => v.emailKey), options.excluding ?? [])));
  const given = options.history ? groupBy(options.history, (v) => v.payeeId) : null;
  const histories = new Map<string, PayeeVersion[]>();
  const readHistories = async (of: readonly PayeeVersion[]): Promise<void> => {
    const ids = [...new Set(of.map((v) => v.payeeId))].filter((id) => !histories.has(id));
    if (ids.length === 0) return;
    const read = given ?? groupBy(await repo.versionsOf(ids), (v) => v.payeeId);
    for (const id of ids) histories.set(id, read.get(id) ?? []);
  };
  const historyOf = (v: PayeeVersion): PayeeVersion[] => {
    const h = histories.get(v.payeeId);
    // Versions start at 1 (a CHECK in both schemas): a version 1 not read with its history is its payee's first.
    if (!h) return [v];
    // A version read a moment ago and not in the history read now: judged as read.
    return h.some((x) => x.version === v.version) ? h : [...h, v];
  };
  await readHistories(marked.filter((v) => v.version > 1));

  // First without approvals: most versions hold by a rule that needs no signature (no digest, no Ed25519).
  const unproven: PayeeVersion[] = [];
  let n = 0;
  for (const v of marked) {
    if (++n % PAYEES_PER_TURN === 0) await nextTurn();
    const { standing } = judgePayee(reading.profileId, historyOf(v), null, paid, control)(v);
    if (standing.holds) standings.set(versionKey(v), standing);
    else unproven.push(v);
  }
  if (unproven.length === 0) return standings;

  await readHistories(unproven);
  const approvals = groupBy(await repo.approvalsOf([...new Set(unproven.map((v) => v.payeeId))]), (a) => a.payeeId);
  n = 0;
  for (const v of unproven) {
    if (++n % APPROVED_PER_TURN === 0) await nextTurn();
    const { standing } = judgePayee(reading.profileId, historyOf(v), approvals.get(v.payeeId) ?? [], paid, control)(v);
    standings.set(versionKey(v), standing);
    if (!standing.holds && !control.problem) await report(repo, reading, v, standing.reason);
  }
  return standings;
}
