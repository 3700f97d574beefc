// Where the payee book of one profile lives: payee versions, the approvals of changes, and what the
// profile paid before (to tell a new payee from a known one). Plain data behind a small async interface,
// like the dual-control repository, so the journal's SQLite adapter (store/sqlite/payees.ts) and the
// PostgreSQL one of the shared journal are a change of adapter, not of model. Versions are only added,
// put in force once or closed once, never rewritten.
import type { PayeeApprovalRecord } from './approval';
import { stateOf, PayeeError, type CloseReason, type PayeeVersion } from './payee';

/** An account the profile paid a payee (by name key, or by e-mail key) before. */
export interface PaidAccount {
  nameKey: string;
  emailKey: string;
  accountNumber: string;
  operatorCode: string;
}

/** Keys or ids to look up: a list, or a set the caller already built (a 100,000-row batch's keys need not be hashed twice). */
export type KeyList = readonly string[] | ReadonlySet<string>;

export interface PayeeRepository {
  /**
   * Synchronous marker of the book in force (versions added, put in force, closed): the approval gate's
   * yes rests on which rows go to new or changed payees, so a send re-asks the gate when it moved.
   */
  changeMarker(): string;
  /** Every version not closed (in force and awaiting approval); with all, closed ones too. Ordered by payee then version. */
  list(options?: { all?: boolean }): Promise<PayeeVersion[]>;
  /** Every version of one payee, oldest first. */
  versions(payeeId: string): Promise<PayeeVersion[]>;
  /** Versions not closed whose name key or e-mail key is one of these. */
  openByKeys(nameKeys: KeyList, emailKeys: KeyList): Promise<PayeeVersion[]>;
  /** Every version of these payees, closed ones too, ordered by payee then version (what a version in force is checked against). */
  versionsOf(payeeIds: readonly string[]): Promise<PayeeVersion[]>;
  /**
   * Adds versions in one transaction (all or none). A version added in force closes the payee's version
   * in force before it ('superseded', by its creator). Refused: a payee/version that exists, a second version
   * awaiting approval for one payee, a second payee in force under one name key.
   */
  addVersions(versions: readonly PayeeVersion[]): Promise<void>;
  /** Puts a version awaiting approval in force at `at`; the version in force before is superseded. */
  activate(payeeId: string, version: number, at: number, by: string | null): Promise<void>;
  /** Closes a version awaiting approval (rejected, withdrawn). */
  close(payeeId: string, version: number, at: number, by: string | null, reason: CloseReason): Promise<void>;

  addApproval(approval: PayeeApprovalRecord): Promise<void>;
  approvalsFor(payeeId: string, version: number): Promise<PayeeApprovalRecord[]>;
  /** Every approval of these payees' changes, in the order recorded. */
  approvalsOf(payeeIds: readonly string[]): Promise<PayeeApprovalRecord[]>;

  /**
   * Accounts the profile paid before to these name keys or e-mail keys: payouts that went (or may have
   * gone) to the gateway, i.e. not queued, held or discarded, leaving out the payouts `excluding` names
   * (the rows being checked). One entry per payout, in the order the payouts were recorded.
   */
  paidBefore(nameKeys: KeyList, emailKeys: KeyList, excluding: KeyList): Promise<PaidAccount[]>;
}

const clone = <T>(v: T): T => structuredClone(v);

/** In-memory repository for unit tests; the same rules as the SQLite adapter. `paid` stands for the journal's payouts. */
export class MemoryPayeeRepository implements PayeeRepository {
  private readonly rows: PayeeVersion[] = [];
  private readonly approvals: PayeeApprovalRecord[] = [];

  constructor(readonly paid: (PaidAccount & { paymentId: string })[] = []) {}

  /** Versions added, put in force or closed so far: any change of the book in force moves it. */
  changeMarker(): string {
    return `${this.rows.length}.${this.rows.filter((r) => r.effectiveAt !== null).length}.${this.rows.filter((r) => r.closedAt !== null).length}`;
  }

  async list(options: { all?: boolean } = {}): Promise<PayeeVersion[]> {
    return this.sorted(this.rows.filter((r) => options.all || r.closedAt === null));
  }
  async versions(payeeId: string): Promise<PayeeVersion[]> {
    return this.sorted(this.rows.filter((r) => r.payeeId === payeeId));
  }
  async openByKeys(nameKeys: KeyList, emailKeys: KeyList): Promise<PayeeVersion[]> {
    const names = new Set(nameKeys);
    const emails = new Set([...emailKeys].filter(Boolean));
    return this.sorted(this.rows.filter((r) => r.closedAt === null && (names.has(r.nameKey) || emails.has(r.emailKey))));
  }
  async versionsOf(payeeIds: readonly string[]): Promise<PayeeVersion[]> {
    const ids = new Set(payeeIds);
    return this.sorted(this.rows.filter((r) => ids.has(r.payeeId)));
  }
  async addVersions(versions: readonly PayeeVersion[]): Promise<void> {
    const next = this.rows.map(clone);
    for (const v of versions) {
      if (next.some((r) => r.payeeId === v.payeeId && r.version === v.version)) throw new PayeeError('DUPLICATE', `payee ${v.payeeId} version ${v.version} already exists`);
      if (v.effectiveAt === null && v.closedAt === null && next.some((r) => r.payeeId === v.payeeId && stateOf(r) === 'awaiting approval')) {
        throw new PayeeError('CHANGE_WAITING', `a change of payee ${v.payeeId} already awaits approval`);
      }
      if (v.effectiveAt !== null) {
        for (const r of next) if (r.payeeId === v.payeeId && stateOf(r) === 'in force') Object.assign(r, { closedAt: v.effectiveAt, closedBy: v.createdBy, closeReason: 'superseded' });
        if (next.some((r) => r.nameKey === v.nameKey && stateOf(r) === 'in force')) throw new PayeeError('DUPLICATE', `a payee named "${v.name}" is already in the book`);
      }
      next.push(clone(v));
    }
    this.rows.splice(0, this.rows.length, ...next);
  }
  async activate(payeeId: string, version: number, at: number, by: string | null): Promise<void> {
    const v = this.waiting(payeeId, version);
    const current = this.rows.find((r) => r.payeeId === payeeId && stateOf(r) === 'in force');
    if (this.rows.some((r) => r.payeeId !== payeeId && r.nameKey === v.nameKey && stateOf(r) === 'in force')) throw new PayeeError('DUPLICATE', `a payee named "${v.name}" is already in the book`);
    if (current) Object.assign(current, { closedAt: at, closedBy: by, closeReason: 'superseded' });
    v.effectiveAt = at;
  }
  async close(payeeId: string, version: number, at: number, by: string | null, reason: CloseReason): Promise<void> {
    Object.assign(this.waiting(payeeId, version), { closedAt: at, closedBy: by, closeReason: reason });
  }
  async addApproval(approval: PayeeApprovalRecord): Promise<void> {
    if (this.approvals.some((a) => a.id === approval.id)) throw new PayeeError('DUPLICATE', `approval ${approval.id} already exists`);
    this.approvals.push(clone(approval));
  }
  async approvalsFor(payeeId: string, version: number): Promise<PayeeApprovalRecord[]> {
    return this.approvals.filter((a) => a.payeeId === payeeId && a.payeeVersion === version).map(clone);
  }
  async approvalsOf(payeeIds: readonly string[]): Promise<PayeeApprovalRecord[]> {
    const ids = new Set(payeeIds);
    return this.approvals.filter((a) => ids.has(a.payeeId)).map(clone);
  }
  async paidBefore(nameKeys: KeyList, emailKeys: KeyList, excluding: KeyList): Promise<PaidAccount[]> {
    const names = new Set(nameKeys);
    const emails = new Set([...emailKeys].filter(Boolean));
    const skip = new Set(excluding);
    return this.paid.filter((p) => !skip.has(p.paymentId) && (names.has(p.nameKey) || emails.has(p.emailKey))).map(({ paymentId: _id, ...rest }) => ({ ...rest }));
  }

  private waiting(payeeId: string, version: number): PayeeVersion {
    const v = this.rows.find((r) => r.payeeId === payeeId && r.version === version);
    if (!v) throw new PayeeError('NOT_FOUND', `no payee ${payeeId} version ${version}`);
    if (stateOf(v) !== 'awaiting approval') throw new PayeeError('NOT_WAITING', `payee ${payeeId} version ${version} is ${stateOf(v)}, not awaiting approval`);
    return v;
  }
  private sorted(rows: PayeeVersion[]): PayeeVersion[] {
    return rows.map(clone).sort((a, b) => (a.payeeId < b.payeeId ? -1 : a.payeeId > b.payeeId ? 1 : a.version - b.version));
  }
}
