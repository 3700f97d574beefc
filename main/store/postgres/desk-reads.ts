// What the desk's screens and CLI read of the team journal besides history (DeskJournal, port.ts): batch lists
// and rows, the attempts of an intent, the CSV checks, balances, pending totals and the audit list, each as the
// SQLite journal answers it (journal.ts, history.ts, audit-log.ts) for the same rows. Where SQLite orders ties
// by rowid, pk or seq is spelled out here. BIGINTs become numbers through pgInteger (exact; unsafe refused).
import type { QueryResultRow } from 'pg';
import { payeeKey } from '../../domain/payee-key';
import { toBatch, type BatchRow } from '../rows';
import type { AuditEntry, BalanceSnapshot, BatchRecord, StoredBatchState, CurrencyTotal, PaymentKind, PaymentRecord, PayoutActivityRow, PayoutOutcome, StatementPaymentRow } from '../../journal/types';
import type { LikePayout, LikePayoutKey, LikePayoutSkip } from '../../journal/port';
import { integerBound, pgInteger, toPgPayment, type PgQueryable } from './history';
import { payoutActivitySql } from '../history';
import { balanceAtSql, groupSuccessRaw, statementPaymentsSql } from '../statements';

export function pgBatchRow(r: QueryResultRow): BatchRow {
  return {
    id: r.id as string,
    file_name: r.file_name as string,
    sha256: r.sha256 as string,
    row_count: pgInteger(r.row_count, 'row_count'),
    totals_json: r.totals_json as string,
    state: r.state as StoredBatchState,
    pause_reason: r.pause_reason as string | null,
    created_at: pgInteger(r.created_at, 'created_at'),
    updated_at: pgInteger(r.updated_at, 'updated_at'),
  };
}

/** A LIMIT as SQLite takes it: a negative one is no limit (PostgreSQL's LIMIT NULL; it refuses a negative one). */
function rowLimit(limit: number): number | null {
  return limit < 0 ? null : limit;
}

/**
 * The newest batches first. SQLite orders batches of the same millisecond by rowid, the later stored first;
 * team batches have no such column, but their rows' pk is one (a batch and its rows are stored in one
 * transaction, every batch has a row): the first row's pk, one probe of payments_batch_row per batch read.
 */
export async function listBatchesPg(db: PgQueryable, limit = 100): Promise<BatchRecord[]> {
  const rows = (await db.query(
    `SELECT b.* FROM batches b
      ORDER BY b.created_at DESC, (SELECT p.pk FROM payments p WHERE p.batch_id = b.id ORDER BY p.row_number, p.pk LIMIT 1) DESC
      LIMIT $1`,
    [rowLimit(limit)],
  )).rows;
  return rows.map((r) => toBatch(pgBatchRow(r)));
}

export async function batchPaymentsPg(db: PgQueryable, batchId: string): Promise<PaymentRecord[]> {
  return (await db.query('SELECT * FROM payments WHERE batch_id = $1 ORDER BY row_number, pk', [batchId])).rows.map(toPgPayment);
}

export async function intentAttemptsPg(db: PgQueryable, intentId: string): Promise<PaymentRecord[]> {
  return (await db.query('SELECT * FROM payments WHERE intent_id = $1 ORDER BY pk', [intentId])).rows.map(toPgPayment);
}

export async function retriedAsPg(db: PgQueryable, id: string): Promise<string | null> {
  const row = (await db.query<{ id: string }>(`SELECT id FROM payments WHERE kind = 'payout' AND retry_of = $1 ORDER BY pk LIMIT 1`, [id])).rows[0];
  return row?.id ?? null;
}

export async function batchRetriesPg(db: PgQueryable, batchId: string): Promise<Map<string, string>> {
  // The first stored retry of each, as retriedAsPg answers.
  const rows = await db.query<{ of: string; retry: string }>(
    `SELECT DISTINCT ON (p.pk) p.id AS of, r.id AS retry FROM payments p JOIN payments r ON r.kind = 'payout' AND r.retry_of = p.id
      WHERE p.batch_id = $1 ORDER BY p.pk, r.pk`,
    [batchId],
  );
  return new Map(rows.rows.map((r) => [r.of, r.retry]));
}

// ---- CSV checks against what was paid before ----

export async function existingPayoutIdsPg(db: PgQueryable, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = (await db.query<{ id: string }>(`SELECT id FROM payments WHERE kind = 'payout' AND id = ANY($1::text[])`, [ids])).rows;
  return new Set(rows.map((r) => r.id));
}

export async function batchFileSubmittedPg(db: PgQueryable, sha256: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM batches WHERE sha256 = $1 LIMIT 1', [sha256])).rows.length > 0;
}

type PayeeAccount = { accountName: string; emailAddress: string; accountNumber: string };

/**
 * Every account each payee (by name, and by e-mail, each on its own) was paid to, in SQLite's order: per key as
 * given, its name's accounts then its e-mail's, each by bytes; a name or e-mail seen before is not repeated.
 * Two statements whatever the number of keys (SQLite asks once per key; here each would be a round trip).
 */
export async function knownBeneficiaryAccountsPg(db: PgQueryable, keys: { accountName: string; emailAddress: string }[]): Promise<PayeeAccount[]> {
  const names = new Map<string, string>(); // payee key -> the name as first given
  const emails = new Map<string, string>();
  const order: { by: 'name' | 'email'; key: string }[] = [];
  for (const k of keys) {
    const name = payeeKey(k.accountName);
    if (name && !names.has(name)) {
      names.set(name, k.accountName);
      order.push({ by: 'name', key: name });
    }
    const email = payeeKey(k.emailAddress);
    if (email && !emails.has(email)) {
      emails.set(email, k.emailAddress);
      order.push({ by: 'email', key: email });
    }
  }
  const accounts = async (column: 'payee_name_key' | 'payee_email_key', wanted: string[]): Promise<Map<string, string[]>> => {
    const found = new Map<string, string[]>();
    if (wanted.length === 0) return found;
    const rows = (await db.query<{ k: string; account_number: string }>(
      `SELECT DISTINCT ${column} AS k, account_number FROM payments WHERE kind = 'payout' AND ${column} = ANY($1::text[]) ORDER BY k, account_number`,
      [wanted],
    )).rows;
    for (const r of rows) found.set(r.k, [...(found.get(r.k) ?? []), r.account_number]);
    return found;
  };
  const [byName, byEmail] = await Promise.all([accounts('payee_name_key', [...names.keys()]), accounts('payee_email_key', [...emails.keys()])]);
  return order.flatMap(({ by, key }) =>
    by === 'name'
      ? (byName.get(key) ?? []).map((accountNumber) => ({ accountName: names.get(key)!, emailAddress: '', accountNumber }))
      : (byEmail.get(key) ?? []).map((accountNumber) => ({ accountName: '', emailAddress: emails.get(key)!, accountNumber })),
  );
}

// ---- balances ----

function toSnapshot(r: QueryResultRow): BalanceSnapshot {
  return {
    currencyCode: r.currency_code as string,
    availableMinor: pgInteger(r.available_minor, 'available_minor'),
    reservedMinor: pgInteger(r.reserved_minor, 'reserved_minor'),
    observedAt: pgInteger(r.observed_at, 'observed_at'),
  };
}

/** A currency's snapshots from `from` (inclusive) to `to` (exclusive), in time order, ties in storing order. */
export async function balanceSeriesPg(db: PgQueryable, currencyCode: string, from = 0, to = Number.MAX_SAFE_INTEGER): Promise<BalanceSnapshot[]> {
  const params: unknown[] = [currencyCode];
  const bounds = ([[from, '>='], [to, '<']] as const).map(([value, op]) => {
    const bound = integerBound(value, op);
    return 'sql' in bound ? bound.sql : `observed_at ${op} $${params.push(bound.value)}::bigint`;
  });
  const rows = (await db.query(
    `SELECT currency_code, available_minor, reserved_minor, observed_at FROM balance_snapshots
      WHERE currency_code = $1 AND ${bounds.join(' AND ')} ORDER BY observed_at, seq`,
    params,
  )).rows;
  return rows.map(toSnapshot);
}

/** The snapshot stored last of each currency (by seq, as SQLite's: not the one observed last). */
export async function latestBalancesPg(db: PgQueryable): Promise<BalanceSnapshot[]> {
  const rows = (await db.query(
    `SELECT DISTINCT ON (currency_code) currency_code, available_minor, reserved_minor, observed_at FROM balance_snapshots
      ORDER BY currency_code, seq DESC`,
  )).rows;
  return rows.map(toSnapshot);
}

/**
 * Payout amounts not final yet, per currency. SUM over BIGINT is NUMERIC (text from node-pg): exact, and a
 * total beyond Number.MAX_SAFE_INTEGER is refused rather than rounded.
 */
export async function pendingPayoutTotalsPg(db: PgQueryable): Promise<CurrencyTotal[]> {
  const rows = (await db.query(
    `SELECT currency_code, SUM(amount_minor) AS total, COUNT(*) AS n FROM payments
      WHERE kind = 'payout' AND NOT is_final AND state IN ('QUEUED', 'SENDING', 'UNKNOWN', 'HELD', 'ACCEPTED')
      GROUP BY currency_code ORDER BY currency_code`,
  )).rows;
  return rows.map((r) => ({ currencyCode: r.currency_code as string, amountMinor: pgInteger(r.total, 'pending total'), count: pgInteger(r.n, 'count') }));
}

/** As the SQLite journal's payoutActivity: the same statement, BIGINT day starts. */
export async function payoutActivityPg(db: PgQueryable, dayStarts: number[]): Promise<PayoutActivityRow[]> {
  if (dayStarts.length === 0) return [];
  const rows = (await db.query(payoutActivitySql(dayStarts.length, (i) => `$${i + 1}::bigint`, 'pg'), dayStarts)).rows;
  return rows.map((r) => ({
    currencyCode: r.currency_code as string,
    day: pgInteger(r.day, 'day'),
    outcome: r.outcome as PayoutOutcome,
    count: pgInteger(r.n, 'count'),
    amountMinor: pgInteger(r.total, 'total'),
    feeCurrencyCode: r.fee_currency_code as string | null,
    feeMinor: pgInteger(r.fees, 'fees'),
  }));
}

/** As the SQLite journal's statementPayments (main/store/statements.ts): the same statements, whole milliseconds. */
export async function statementPaymentsPg(db: PgQueryable, since: number, acceptedBy: number): Promise<StatementPaymentRow[]> {
  const rows = (await db.query({ text: statementPaymentsSql('pg', '$1::bigint', '$2::bigint'), values: [since, acceptedBy], rowMode: 'array' })).rows as unknown[][];
  const returned = rows.filter((r) => r[0] === 'payout' && String(r[6]).toUpperCase() === 'RETURNED').map((r) => r[1] as string);
  const successes = returned.length
    ? groupSuccessRaw((await db.query(`SELECT id, raw_json FROM status_events WHERE kind = 'payout' AND id = ANY($1::text[]) AND upper(status) = 'SUCCESS' AND raw_json IS NOT NULL ORDER BY seq`, [returned])).rows as { id: string; raw_json: string }[])
    : new Map<string, string[]>();
  return rows.map((r) => ({
    kind: r[0] as PaymentKind,
    id: r[1] as string,
    currencyCode: r[2] as string,
    amountMinor: pgInteger(r[3], 'amount_minor'),
    feeCurrencyCode: r[4] as string | null,
    feeMinor: r[5] === null ? null : pgInteger(r[5], 'fee_minor'),
    status: r[6] as string,
    isFinal: r[7] as boolean,
    processedAt: r[8] as string | null,
    acceptedAt: r[9] === null ? null : pgInteger(r[9], 'accepted_at'),
    successRaw: successes.get(r[1] as string) ?? [],
  }));
}

/** `at` in whole milliseconds, as the statement asks (a BIGINT parameter takes no fraction). */
export async function balanceAtPg(db: PgQueryable, currencyCode: string, at: number): Promise<BalanceSnapshot | null> {
  const rows = (await db.query(balanceAtSql('$1', '$2::bigint'), [currencyCode, at])).rows;
  return rows[0] ? toSnapshot(rows[0]) : null;
}

// ---- audit ----

/** The newest entries first; only those before `beforeSeq` when given. */
export async function listAuditPg(db: PgQueryable, limit = 200, beforeSeq?: number): Promise<AuditEntry[]> {
  const params: unknown[] = [rowLimit(limit)];
  let where = '';
  if (beforeSeq !== undefined) {
    const bound = integerBound(beforeSeq, '<');
    where = `WHERE ${'sql' in bound ? bound.sql : `seq < $${params.push(bound.value)}::bigint`}`;
  }
  const rows = (await db.query(`SELECT * FROM audit_log ${where} ORDER BY seq DESC LIMIT $1`, params)).rows;
  return rows.map((r) => ({
    seq: pgInteger(r.seq, 'seq'),
    at: pgInteger(r.at, 'at'),
    actor: r.actor as string,
    action: r.action as string,
    subject: r.subject as string | null,
    details: JSON.parse(r.details_json as string) as unknown,
    prevHash: r.prev_hash as string,
    hash: r.hash as string,
  }));
}

/**
 * As the SQLite journal's earliestLikePayouts: one statement, the keys as three arrays unnested side by side, and
 * for each a LATERAL walk of payments_like from `since` that stops at the first payout that counts.
 */
export async function earliestLikePayoutsPg(db: PgQueryable, keys: LikePayoutKey[], since: number, skip: LikePayoutSkip = {}): Promise<LikePayout[]> {
  if (keys.length === 0) return [];
  const result = await db.query<{ id: string; account_number: string; amount_minor: string; currency_code: string; created_at: string; batch_id: string | null; file_name: string | null; sha256: string | null }>(
    `SELECT p.id, p.account_number, p.amount_minor, p.currency_code, p.created_at, p.batch_id, b.file_name, b.sha256
       FROM unnest($1::text[], $2::bigint[], $3::text[]) AS k (account_number, amount_minor, currency_code)
       CROSS JOIN LATERAL (
         SELECT q.id, q.account_number, q.amount_minor, q.currency_code, q.created_at, q.batch_id FROM payments AS q
          WHERE q.kind = 'payout' AND q.account_number = k.account_number AND q.amount_minor = k.amount_minor AND q.currency_code = k.currency_code
            AND q.created_at >= $4 AND (NOT q.is_final OR q.status = 'SUCCESS')
            AND ($5::text IS NULL OR q.batch_id IS DISTINCT FROM $5::text)
            AND NOT (q.id = ANY ($6::text[]))
            AND ($7::text IS NULL OR NOT EXISTS (SELECT 1 FROM batches AS f WHERE f.id = q.batch_id AND f.sha256 = $7::text))
          ORDER BY q.created_at, q.id LIMIT 1) AS p
       LEFT JOIN batches AS b ON b.id = p.batch_id
      ORDER BY p.created_at, p.id`,
    [keys.map((r) => r.accountNumber), keys.map((r) => r.amountMinor), keys.map((r) => r.currencyCode), since, skip.batchId ?? null, skip.ids ?? [], skip.fileSha256 ?? null],
  );
  return result.rows.map((r) => ({
    id: r.id, accountNumber: r.account_number, amountMinor: Number(r.amount_minor), currencyCode: r.currency_code, createdAt: Number(r.created_at), batchId: r.batch_id, fileName: r.file_name, fileSha256: r.sha256,
  }));
}
