// The payee book in the profile's journal (migration 7): tables payees (versions) and payee_approvals;
// "paid before" reads the journal's payouts by payee_name_key / payee_email_key (migration 5).
import type { Journal } from '.';
import type { PayeeApprovalRecord } from '../../payees/approval';
import { PayeeError, type CloseReason, type PayeeSource, type PayeeVersion } from '../../payees/payee';
import type { KeyList, PaidAccount, PayeeRepository } from '../../payees/repository';
import { prepared } from './prepared';

interface PayeeRow {
  payee_id: string;
  version: number;
  base_version: number | null;
  name: string;
  name_key: string;
  account_number: string;
  operator_code: string;
  email_address: string;
  email_key: string;
  reference_default: string | null;
  source: PayeeSource;
  source_ref: string | null;
  bank_change: number;
  change_digest: string;
  created_at: number;
  created_by: string | null;
  effective_at: number | null;
  closed_at: number | null;
  closed_by: string | null;
  close_reason: CloseReason | null;
}

interface ApprovalRow {
  id: string;
  profile_id: string;
  payee_id: string;
  payee_version: number;
  change_digest: string;
  policy_version: number;
  decision: PayeeApprovalRecord['decision'];
  reason: string | null;
  signer_id: string;
  signed_at: number;
  signature: string;
}

const toVersion = (r: PayeeRow): PayeeVersion => ({
  payeeId: r.payee_id, version: r.version, baseVersion: r.base_version, name: r.name, nameKey: r.name_key, accountNumber: r.account_number, operatorCode: r.operator_code,
  emailAddress: r.email_address, emailKey: r.email_key, referenceDefault: r.reference_default, source: r.source, sourceRef: r.source_ref, bankChange: r.bank_change === 1,
  changeDigest: r.change_digest, createdAt: r.created_at, createdBy: r.created_by, effectiveAt: r.effective_at, closedAt: r.closed_at, closedBy: r.closed_by, closeReason: r.close_reason,
});

const toApproval = (r: ApprovalRow): PayeeApprovalRecord => ({
  id: r.id, profileId: r.profile_id, payeeId: r.payee_id, payeeVersion: r.payee_version, changeDigest: r.change_digest, policyVersion: r.policy_version,
  decision: r.decision, reason: r.reason, signerId: r.signer_id, signedAt: r.signed_at, signature: r.signature,
});

/** The unique indexes' refusals, as the memory adapter words them. */
function refusal(error: unknown, v: Pick<PayeeVersion, 'payeeId' | 'version' | 'name'>): unknown {
  const message = error instanceof Error ? error.message : '';
  if (/UNIQUE constraint failed: payees\.payee_id, payees\.version/.test(message)) return new PayeeError('DUPLICATE', `payee ${v.payeeId} version ${v.version} already exists`);
  if (/UNIQUE constraint failed: payees\.name_key/.test(message)) return new PayeeError('DUPLICATE', `a payee named "${v.name}" is already in the book`);
  if (/UNIQUE constraint failed: payees\.payee_id$/.test(message)) return new PayeeError('CHANGE_WAITING', `a change of payee ${v.payeeId} already awaits approval`);
  return error;
}

const OPEN = 'closed_at IS NULL';
/** Keys looked up between two turns of the event loop: a 100,000-row batch is checked in the app's main process. */
const KEYS_PER_TURN = 500;
/** Rows of a table read between two turns when it is read whole (a range of its integer primary key). */
const SCAN_PER_TURN = 2000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const IN_FORCE = 'effective_at IS NOT NULL AND closed_at IS NULL';

/** Rows of `query` for the distinct non-empty ids, KEYS_PER_TURN ids per statement (a JSON array), a turn between. */
async function byIdChunks<R>(ids: KeyList, query: (json: string) => R[]): Promise<R[]> {
  const distinct = [...new Set(ids)].filter(Boolean);
  const found: R[] = [];
  for (let i = 0; i < distinct.length; i += KEYS_PER_TURN) {
    if (i > 0) await nextTurn();
    for (const r of query(JSON.stringify(distinct.slice(i, i + KEYS_PER_TURN)))) found.push(r);
  }
  return found;
}

/** `items` as a set: the caller's own, or built SCAN_PER_TURN at a time with a turn between (100,000 take tens of ms). */
async function setOf(items: KeyList): Promise<ReadonlySet<string>> {
  if (items instanceof Set) return items;
  const list = items as readonly string[];
  const set = new Set<string>();
  for (let i = 0; i < list.length; i += SCAN_PER_TURN) {
    if (i > 0) await nextTurn();
    for (let j = i; j < Math.min(i + SCAN_PER_TURN, list.length); j++) set.add(list[j]!);
  }
  return set;
}

const sizeOf = (keys: KeyList): number => (keys instanceof Set ? keys.size : (keys as readonly string[]).length);

/**
 * Reads a table whole, in ascending ranges of its integer primary key (SCAN_PER_TURN keys a statement, a turn
 * between; the range statement binds the low and high key, exclusive and inclusive), and keeps what `keep`
 * returns. A statement is never left open across a turn: the connection stays free for whoever runs then.
 */
async function scanRanges<R, T>(span: { low: number; high: number }, range: (low: number, high: number) => R[], keep: (row: R) => T | undefined): Promise<T[]> {
  const kept: T[] = [];
  for (let low = span.low - 1; low < span.high; low += SCAN_PER_TURN) {
    if (low >= span.low) await nextTurn();
    for (const r of range(low, Math.min(low + SCAN_PER_TURN, span.high))) {
      const t = keep(r);
      if (t !== undefined) kept.push(t);
    }
  }
  return kept;
}

export class SqlitePayeeRepository implements PayeeRepository {
  constructor(
    private readonly journal: Journal,
    private readonly now: () => number = Date.now,
  ) {}

  private get db() {
    return this.journal.db;
  }

  // Versions are only added, then put in force once and closed once (migration 7's triggers).
  changeMarker(): string {
    const r = prepared(this.db, 'SELECT coalesce(max(seq), 0) AS added, count(effective_at) AS active, count(closed_at) AS closed FROM payees').get() as Record<string, number>;
    return `${r.added}.${r.active}.${r.closed}`;
  }

  async list(options: { all?: boolean } = {}): Promise<PayeeVersion[]> {
    return (this.db.prepare(`SELECT * FROM payees ${options.all ? '' : `WHERE ${OPEN}`} ORDER BY payee_id, version`).all() as PayeeRow[]).map(toVersion);
  }

  async versions(payeeId: string): Promise<PayeeVersion[]> {
    return (this.db.prepare('SELECT * FROM payees WHERE payee_id = ? ORDER BY version').all(payeeId) as PayeeRow[]).map(toVersion);
  }

  async openByKeys(nameKeys: KeyList, emailKeys: KeyList): Promise<PayeeVersion[]> {
    const sorted = (versions: PayeeVersion[]) => versions.sort((a, b) => (a.payeeId < b.payeeId ? -1 : a.payeeId > b.payeeId ? 1 : a.version - b.version));
    const span = this.span('payees', 'seq');
    if (span && sizeOf(nameKeys) + sizeOf(emailKeys) >= span.high - span.low + 1) {
      // More keys than versions (a 100,000-row batch against a 10,000-payee book): reading the open versions
      // whole costs less than an index probe per key, and finds the same ones.
      const names = await setOf(nameKeys);
      const emails = await setOf(emailKeys);
      // Unary plus: the ranges of the primary key, never an index of open versions walked whole for each.
      const range = this.db.prepare(`SELECT * FROM payees WHERE seq > ? AND seq <= ? AND +${OPEN}`);
      return sorted(await scanRanges(span, (low, high) => range.all(low, high) as PayeeRow[], (r) => ((r.name_key && names.has(r.name_key)) || (r.email_key && emails.has(r.email_key)) ? toVersion(r) : undefined)));
    }
    // One statement per chunk of keys, not one per key: SQLite walks the index for each key of the JSON array.
    const byNames = this.db.prepare(`SELECT * FROM payees WHERE name_key IN (SELECT value FROM json_each(?)) AND ${OPEN}`);
    const byEmails = this.db.prepare(`SELECT * FROM payees WHERE email_key IN (SELECT value FROM json_each(?)) AND ${OPEN}`);
    const found = new Map<string, PayeeRow>();
    for (const r of await byIdChunks(nameKeys, (json) => byNames.all(json) as PayeeRow[])) found.set(`${r.payee_id}/${r.version}`, r);
    for (const r of await byIdChunks(emailKeys, (json) => byEmails.all(json) as PayeeRow[])) found.set(`${r.payee_id}/${r.version}`, r);
    return sorted([...found.values()].map(toVersion));
  }

  async versionsOf(payeeIds: readonly string[]): Promise<PayeeVersion[]> {
    const statement = this.db.prepare('SELECT * FROM payees WHERE payee_id IN (SELECT value FROM json_each(?)) ORDER BY payee_id, version');
    const rows = await byIdChunks(payeeIds, (json) => statement.all(json) as PayeeRow[]);
    return rows.sort((a, b) => (a.payee_id < b.payee_id ? -1 : a.payee_id > b.payee_id ? 1 : a.version - b.version)).map(toVersion);
  }

  async addVersions(versions: readonly PayeeVersion[]): Promise<void> {
    const supersede = this.db.prepare(`UPDATE payees SET closed_at = ?, closed_by = ?, close_reason = 'superseded' WHERE payee_id = ? AND ${IN_FORCE}`);
    const insert = this.db.prepare(
      `INSERT INTO payees (payee_id, version, base_version, name, name_key, account_number, operator_code, email_address, email_key, reference_default, source, source_ref,
         bank_change, change_digest, created_at, created_by, effective_at, closed_at, closed_by, close_reason)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      for (const v of versions) {
        try {
          if (v.effectiveAt !== null) supersede.run(v.effectiveAt, v.createdBy, v.payeeId);
          insert.run(v.payeeId, v.version, v.baseVersion, v.name, v.nameKey, v.accountNumber, v.operatorCode, v.emailAddress, v.emailKey, v.referenceDefault, v.source, v.sourceRef,
            v.bankChange ? 1 : 0, v.changeDigest, v.createdAt, v.createdBy, v.effectiveAt, v.closedAt, v.closedBy, v.closeReason);
        } catch (error) {
          throw refusal(error, v);
        }
      }
    })();
  }

  async activate(payeeId: string, version: number, at: number, by: string | null): Promise<void> {
    this.db.transaction(() => {
      const v = this.waiting(payeeId, version);
      try {
        this.db.prepare(`UPDATE payees SET closed_at = ?, closed_by = ?, close_reason = 'superseded' WHERE payee_id = ? AND ${IN_FORCE}`).run(at, by, payeeId);
        this.db.prepare('UPDATE payees SET effective_at = ? WHERE payee_id = ? AND version = ?').run(at, payeeId, version);
      } catch (error) {
        throw refusal(error, toVersion(v));
      }
    })();
  }

  async close(payeeId: string, version: number, at: number, by: string | null, reason: CloseReason): Promise<void> {
    this.db.transaction(() => {
      this.waiting(payeeId, version);
      this.db.prepare('UPDATE payees SET closed_at = ?, closed_by = ?, close_reason = ? WHERE payee_id = ? AND version = ?').run(at, by, reason, payeeId, version);
    })();
  }

  async addApproval(a: PayeeApprovalRecord): Promise<void> {
    try {
      this.db.prepare(
        `INSERT INTO payee_approvals (id, profile_id, payee_id, payee_version, change_digest, policy_version, decision, reason, signer_id, signed_at, signature, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(a.id, a.profileId, a.payeeId, a.payeeVersion, a.changeDigest, a.policyVersion, a.decision, a.reason, a.signerId, a.signedAt, a.signature, this.now());
    } catch (error) {
      if (error instanceof Error && /UNIQUE constraint failed: payee_approvals\.id/.test(error.message)) throw new PayeeError('DUPLICATE', `approval ${a.id} already exists`);
      throw error;
    }
  }

  async approvalsFor(payeeId: string, version: number): Promise<PayeeApprovalRecord[]> {
    return (this.db.prepare('SELECT * FROM payee_approvals WHERE payee_id = ? AND payee_version = ? ORDER BY recorded_at, rowid').all(payeeId, version) as ApprovalRow[]).map(toApproval);
  }

  async approvalsOf(payeeIds: readonly string[]): Promise<PayeeApprovalRecord[]> {
    const statement = this.db.prepare('SELECT * FROM payee_approvals WHERE payee_id IN (SELECT value FROM json_each(?)) ORDER BY recorded_at, rowid');
    return (await byIdChunks(payeeIds, (json) => statement.all(json) as ApprovalRow[])).map(toApproval);
  }

  async paidBefore(nameKeys: KeyList, emailKeys: KeyList, excluding: KeyList): Promise<PaidAccount[]> {
    const went = `p.kind = 'payout' AND p.state NOT IN ('QUEUED', 'HELD', 'DISCARDED')`;
    const columns = 'p.pk, p.id, p.payee_name_key, p.payee_email_key, p.account_number, p.payment_operator_code';
    type Row = [pk: number, id: string, nameKey: string | null, emailKey: string | null, accountNumber: string, operatorCode: string];
    const account = (r: Row): PaidAccount => ({ nameKey: r[2] ?? '', emailKey: r[3] ?? '', accountNumber: r[4], operatorCode: r[5] });
    const span = this.span('payments', 'pk');
    if (!span) return [];
    const skip = await setOf(excluding);
    if (sizeOf(nameKeys) + sizeOf(emailKeys) >= span.high - span.low + 1) {
      // More keys than payments (a 100,000-row batch against a journal of as many payouts): one read of the
      // payments in key order costs half of two index probes per row, and finds the same payouts.
      const names = await setOf(nameKeys);
      const emails = await setOf(emailKeys);
      // Unary plus: no index for kind or state, which SQLite would otherwise walk whole for every range (and sort).
      const range = this.db.prepare(`SELECT ${columns} FROM payments AS p WHERE p.pk > ? AND p.pk <= ? AND +p.kind = 'payout' AND +p.state NOT IN ('QUEUED', 'HELD', 'DISCARDED') ORDER BY p.pk`).raw(true);
      return scanRanges(span, (low, high) => range.all(low, high) as Row[], (r) =>
        ((r[2] && names.has(r[2])) || (r[3] && emails.has(r[3]))) && !skip.has(r[1]) ? account(r) : undefined);
    }
    // One statement per chunk of keys (a JSON array), not one per key. CROSS JOIN keeps the keys outside: left
    // to choose, SQLite walks every payout by kind and tests each against the keys (four times slower).
    const byNames = this.db.prepare(`SELECT ${columns} FROM json_each(?) AS k CROSS JOIN payments AS p ON p.payee_name_key = k.value WHERE ${went}`).raw(true);
    const byEmails = this.db.prepare(`SELECT ${columns} FROM json_each(?) AS k CROSS JOIN payments AS p ON p.payee_email_key = k.value WHERE ${went}`).raw(true);
    const found = new Map<number, Row>();
    for (const r of await byIdChunks(nameKeys, (json) => byNames.all(json) as Row[])) found.set(r[0], r);
    for (const r of await byIdChunks(emailKeys, (json) => byEmails.all(json) as Row[])) found.set(r[0], r);
    // In the order paid (as the other adapters answer): numbers sort natively in a typed array.
    const paid: PaidAccount[] = [];
    for (const pk of Float64Array.from(found.keys()).sort()) {
      const r = found.get(pk)!;
      if (!skip.has(r[1])) paid.push(account(r));
    }
    return paid;
  }

  /** The lowest and highest integer primary key of a table (null when empty): a bound on its row count read from the b-tree's ends. */
  private span(table: 'payees' | 'payments', key: 'seq' | 'pk'): { low: number; high: number } | null {
    // Two subqueries: SQLite reads min() or max() from an end of the b-tree only when it is a query's one aggregate.
    const r = this.db.prepare(`SELECT (SELECT min(${key}) FROM ${table}) AS low, (SELECT max(${key}) FROM ${table}) AS high`).get() as { low: number | null; high: number | null };
    return r.low === null || r.high === null ? null : { low: r.low, high: r.high };
  }

  private waiting(payeeId: string, version: number): PayeeRow {
    const row = this.db.prepare('SELECT * FROM payees WHERE payee_id = ? AND version = ?').get(payeeId, version) as PayeeRow | undefined;
    if (!row) throw new PayeeError('NOT_FOUND', `no payee ${payeeId} version ${version}`);
    if (row.effective_at !== null || row.closed_at !== null) {
      throw new PayeeError('NOT_WAITING', `payee ${payeeId} version ${version} is ${row.closed_at !== null ? (row.close_reason ?? 'closed') : 'in force'}, not awaiting approval`);
    }
    return row;
  }
}
