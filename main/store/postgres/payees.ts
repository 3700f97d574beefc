// The team journal's (PostgreSQL) adapter of PayeeRepository: the same records and rules as the SQLite
// adapter (store/sqlite/payees.ts), shared by every desk of a team. Tables: main/store/postgres/migrations.ts, 6.
//
// changeMarker() must answer synchronously (the approval gate's clearance rests on it right before a create
// leaves). The database bumps one counter on every payee-book write and notifies 'payees' with it; this
// adapter LISTENs on a connection of its own and keeps the highest value seen, and takes in the value its
// own writes reached before they return. While it is not listening, the marker is a fresh value at every
// call, so no clearance holds (every send asks the gate again); the connection is opened again in the
// background, because a gate asked at every send re-reads every approved manifest.
//
// Two desks: every write of versions first locks the counter's row, so one desk's check-then-write never
// interleaves with another's (the unique indexes hold anyway; a violation is worded as a refusal).
import type { Pool, PoolClient } from 'pg';
import { ChangeCounter } from './change-counter';
import { inTransaction } from './transaction';
import type { PayeeApprovalRecord } from '../../payees/approval';
import { PayeeError, stateOf, type CloseReason, type PayeeSource, type PayeeVersion } from '../../payees/payee';
import type { KeyList, PaidAccount, PayeeRepository } from '../../payees/repository';

type Row = Record<string, unknown>;
const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const text = (v: unknown): string => String(v);
const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

const toVersion = (r: Row): PayeeVersion => ({
  payeeId: text(r['payee_id']), version: num(r['version']), baseVersion: numOrNull(r['base_version']), name: text(r['name']), nameKey: text(r['name_key']),
  accountNumber: text(r['account_number']), operatorCode: text(r['operator_code']), emailAddress: text(r['email_address']), emailKey: text(r['email_key']),
  referenceDefault: textOrNull(r['reference_default']), source: text(r['source']) as PayeeSource, sourceRef: textOrNull(r['source_ref']), bankChange: r['bank_change'] === true,
  changeDigest: text(r['change_digest']), createdAt: num(r['created_at']), createdBy: textOrNull(r['created_by']), effectiveAt: numOrNull(r['effective_at']),
  closedAt: numOrNull(r['closed_at']), closedBy: textOrNull(r['closed_by']), closeReason: textOrNull(r['close_reason']) as CloseReason | null,
});

const toApproval = (r: Row): PayeeApprovalRecord => ({
  id: text(r['id']), profileId: text(r['profile_id']), payeeId: text(r['payee_id']), payeeVersion: num(r['payee_version']), changeDigest: text(r['change_digest']),
  policyVersion: num(r['policy_version']), decision: text(r['decision']) as PayeeApprovalRecord['decision'], reason: textOrNull(r['reason']), signerId: text(r['signer_id']),
  signedAt: num(r['signed_at']), signature: text(r['signature']),
});

/** The unique indexes' refusals (migration 6 names them), as the memory adapter words them. */
function refusal(error: unknown, v: Pick<PayeeVersion, 'payeeId' | 'version' | 'name'>): unknown {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  if (e?.code !== '23505') return error;
  if (e.constraint === 'payees_payee_version') return new PayeeError('DUPLICATE', `payee ${v.payeeId} version ${v.version} already exists`);
  if (e.constraint === 'payees_name_in_force') return new PayeeError('DUPLICATE', `a payee named "${v.name}" is already in the book`);
  if (e.constraint === 'payees_waiting') return new PayeeError('CHANGE_WAITING', `a change of payee ${v.payeeId} already awaits approval`);
  return error;
}

const OPEN = 'closed_at IS NULL';
const IN_FORCE = 'effective_at IS NOT NULL AND closed_at IS NULL';
const ORDER = 'ORDER BY payee_id, version';
/** Distinct non-empty keys (the adapters never match a blank key). */
const keysFrom = (keys: KeyList): string[] => [...new Set(keys)].filter(Boolean);

export interface PgPayeeRepositoryOptions {
  /** Wait before listening again after the listening connection was lost (default 2 s). */
  relistenMs?: number;
}

export class PgPayeeRepository implements PayeeRepository {
  private constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
    /** The payee book's write counter, followed on channel 'payees' (its marker is changeMarker()). */
    private readonly changes: ChangeCounter,
  ) {}

  /** Opens the adapter on a migrated team database and starts following other desks' changes. */
  static async open(pool: Pool, now: () => number = Date.now, options: PgPayeeRepositoryOptions = {}): Promise<PgPayeeRepository> {
    const changes = await ChangeCounter.open(pool, { channel: 'payees', table: 'payee_changes', ...(options.relistenMs !== undefined ? { relistenMs: options.relistenMs } : {}) });
    return new PgPayeeRepository(pool, now, changes);
  }

  /**
   * Stops following changes (not `close`: the interface's close() closes a version). The listening connection
   * is closed, not given back to the pool still listening; call before ending the pool.
   */
  async end(): Promise<void> {
    await this.changes.end();
  }

  changeMarker(): string {
    return this.changes.marker();
  }

  /**
   * Runs `work` in one transaction and takes in the counter its writes reached before returning, so a
   * clearance taken before this write no longer holds even if the notification is late. A write whose
   * outcome is unknown (not a refusal) reads the counter again; when that fails too, the marker stops holding.
   */
  private async write(work: (client: PoolClient) => Promise<void>, options: { lock: boolean }): Promise<void> {
    let reached: bigint;
    try {
      reached = await inTransaction(this.pool, async (c) => {
        // One writer of versions at a time across desks: the checks below and the writes stay one step.
        if (options.lock) await c.query('SELECT n FROM payee_changes FOR UPDATE');
        await work(c);
        return BigInt((await c.query<{ n: string }>('SELECT n FROM payee_changes')).rows[0]?.n ?? 0);
      });
    } catch (error) {
      if (!(error instanceof PayeeError)) await this.changes.refresh();
      throw error;
    }
    this.changes.advance(reached);
  }


  async list(options: { all?: boolean } = {}): Promise<PayeeVersion[]> {
    return (await this.pool.query(`SELECT * FROM payees ${options.all ? '' : `WHERE ${OPEN}`} ${ORDER}`)).rows.map(toVersion);
  }

  async versions(payeeId: string): Promise<PayeeVersion[]> {
    return (await this.pool.query('SELECT * FROM payees WHERE payee_id = $1 ORDER BY version', [payeeId])).rows.map(toVersion);
  }

  async openByKeys(nameKeys: KeyList, emailKeys: KeyList): Promise<PayeeVersion[]> {
    const r = await this.pool.query(`SELECT * FROM payees WHERE ${OPEN} AND (name_key = ANY($1::text[]) OR email_key = ANY($2::text[])) ${ORDER}`, [
      keysFrom(nameKeys), keysFrom(emailKeys),
    ]);
    return r.rows.map(toVersion);
  }

  async versionsOf(payeeIds: readonly string[]): Promise<PayeeVersion[]> {
    return (await this.pool.query(`SELECT * FROM payees WHERE payee_id = ANY($1::text[]) ${ORDER}`, [keysFrom(payeeIds)])).rows.map(toVersion);
  }

  async addVersions(versions: readonly PayeeVersion[]): Promise<void> {
    await this.write(async (c) => {
      for (const v of versions) {
        try {
          if (v.effectiveAt !== null) {
            await c.query(`UPDATE payees SET closed_at = $1, closed_by = $2, close_reason = 'superseded' WHERE payee_id = $3 AND ${IN_FORCE}`, [v.effectiveAt, v.createdBy, v.payeeId]);
          }
          await c.query(
            `INSERT INTO payees (payee_id, version, base_version, name, name_key, account_number, operator_code, email_address, email_key, reference_default, source, source_ref,
               bank_change, change_digest, created_at, created_by, effective_at, closed_at, closed_by, close_reason)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
            [v.payeeId, v.version, v.baseVersion, v.name, v.nameKey, v.accountNumber, v.operatorCode, v.emailAddress, v.emailKey, v.referenceDefault, v.source, v.sourceRef,
              v.bankChange, v.changeDigest, v.createdAt, v.createdBy, v.effectiveAt, v.closedAt, v.closedBy, v.closeReason],
          );
        } catch (error) {
          throw refusal(error, v);
        }
      }
    }, { lock: true });
  }

  async activate(payeeId: string, version: number, at: number, by: string | null): Promise<void> {
    await this.write(async (c) => {
      const v = await this.waiting(c, payeeId, version);
      try {
        await c.query(`UPDATE payees SET closed_at = $1, closed_by = $2, close_reason = 'superseded' WHERE payee_id = $3 AND ${IN_FORCE}`, [at, by, payeeId]);
        await c.query('UPDATE payees SET effective_at = $1 WHERE payee_id = $2 AND version = $3', [at, payeeId, version]);
      } catch (error) {
        throw refusal(error, v);
      }
    }, { lock: true });
  }

  async close(payeeId: string, version: number, at: number, by: string | null, reason: CloseReason): Promise<void> {
    await this.write(async (c) => {
      await this.waiting(c, payeeId, version);
      await c.query('UPDATE payees SET closed_at = $1, closed_by = $2, close_reason = $3 WHERE payee_id = $4 AND version = $5', [at, by, reason, payeeId, version]);
    }, { lock: true });
  }

  async addApproval(a: PayeeApprovalRecord): Promise<void> {
    // Nothing is checked before the insert: the primary key alone decides, so no lock is needed.
    await this.write(async (c) => {
      const inserted = await c.query(
        `INSERT INTO payee_approvals (id, profile_id, payee_id, payee_version, change_digest, policy_version, decision, reason, signer_id, signed_at, signature, recorded_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING`,
        [a.id, a.profileId, a.payeeId, a.payeeVersion, a.changeDigest, a.policyVersion, a.decision, a.reason, a.signerId, a.signedAt, a.signature, this.now()],
      );
      if (inserted.rowCount === 0) throw new PayeeError('DUPLICATE', `approval ${a.id} already exists`);
    }, { lock: false });
  }

  async approvalsFor(payeeId: string, version: number): Promise<PayeeApprovalRecord[]> {
    const r = await this.pool.query('SELECT * FROM payee_approvals WHERE payee_id = $1 AND payee_version = $2 ORDER BY recorded_at, seq', [payeeId, version]);
    return r.rows.map(toApproval);
  }

  async approvalsOf(payeeIds: readonly string[]): Promise<PayeeApprovalRecord[]> {
    const r = await this.pool.query('SELECT * FROM payee_approvals WHERE payee_id = ANY($1::text[]) ORDER BY recorded_at, seq', [keysFrom(payeeIds)]);
    return r.rows.map(toApproval);
  }

  async paidBefore(nameKeys: KeyList, emailKeys: KeyList, excluding: KeyList): Promise<PaidAccount[]> {
    // As the SQLite adapter: payouts that went (or may have gone) to the gateway, one entry per payout.
    const r = await this.pool.query<{ id: string; payee_name_key: string | null; payee_email_key: string | null; account_number: string; payment_operator_code: string }>(
      `SELECT id, payee_name_key, payee_email_key, account_number, payment_operator_code FROM payments
       WHERE kind = 'payout' AND state NOT IN ('QUEUED', 'HELD', 'DISCARDED') AND (payee_name_key = ANY($1::text[]) OR payee_email_key = ANY($2::text[]))
       ORDER BY pk`,
      [keysFrom(nameKeys), keysFrom(emailKeys)],
    );
    const skip = new Set(excluding);
    return r.rows
      .filter((p) => !skip.has(p.id))
      .map((p) => ({ nameKey: p.payee_name_key ?? '', emailKey: p.payee_email_key ?? '', accountNumber: p.account_number, operatorCode: p.payment_operator_code }));
  }

  /** The version, which must await approval; its row is read under the writers' lock taken by write(). */
  private async waiting(c: PoolClient, payeeId: string, version: number): Promise<PayeeVersion> {
    const row = (await c.query('SELECT * FROM payees WHERE payee_id = $1 AND version = $2', [payeeId, version])).rows[0] as Row | undefined;
    if (!row) throw new PayeeError('NOT_FOUND', `no payee ${payeeId} version ${version}`);
    const v = toVersion(row);
    if (stateOf(v) !== 'awaiting approval') throw new PayeeError('NOT_WAITING', `payee ${payeeId} version ${version} is ${stateOf(v)}, not awaiting approval`);
    return v;
  }
}
