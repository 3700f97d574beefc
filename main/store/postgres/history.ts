// The journal's read side on the team database (PostgreSQL): the same history pages, exports and
// timelines as history.ts gives from SQLite, for the same rows. What a filter means (normalised values,
// text search mode, paging, sort order) comes from history.ts's shared functions; only the SQL differs.
// node-pg returns BIGINT as text: every such value is turned into a number here, and refused (rather
// than rounded) beyond Number.MAX_SAFE_INTEGER.
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { cappedTotal, historyCountLimit, historyPaging, historyTerms, likeEscape } from '../history';
import { toPayment, toStatusEvent, type PaymentRow } from '../rows';
import type { HistoryFilter, HistoryPage, HistoryQuery, PaymentKind, PaymentRecord, StatusEvent } from '../../journal/types';
import { CodedError } from '../../domain/coded-error';

/** A pool, or one client of it (inside a transaction). */
export type PgQueryable = Pick<Pool, 'query'> | Pick<PoolClient, 'query'>;

export class UnsafeIntegerError extends CodedError<'UNSAFE_INTEGER'> {
  constructor(column: string, value: unknown) {
    super('UNSAFE_INTEGER', `${column} holds ${String(value)}, beyond the integers a number keeps exactly (Number.MAX_SAFE_INTEGER)`);
  }
}

/** A BIGINT / INTEGER as node-pg hands it (text or number) as an exact number. */
export function pgInteger(value: unknown, column: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new UnsafeIntegerError(column, value);
  return n;
}

function pgIntegerOrNull(value: unknown, column: string): number | null {
  return value === null || value === undefined ? null : pgInteger(value, column);
}

function flag(value: unknown): number {
  return value === true ? 1 : 0;
}

/** A payments row read from PostgreSQL, in the SQLite row's shape, so both go through the same toPayment. */
export function pgPaymentRow(r: QueryResultRow): PaymentRow {
  return {
    pk: pgInteger(r.pk, 'pk'),
    kind: r.kind as PaymentKind,
    id: r.id as string,
    batch_id: r.batch_id as string | null,
    row_number: pgIntegerOrNull(r.row_number, 'row_number'),
    amount_minor: pgInteger(r.amount_minor, 'amount_minor'),
    currency_code: r.currency_code as string,
    account_name: r.account_name as string,
    account_number: r.account_number as string,
    payment_operator_code: r.payment_operator_code as string,
    payment_method_code: r.payment_method_code as string,
    email_address: r.email_address as string,
    callback_url: r.callback_url as string | null,
    reference: r.reference as string | null,
    state: r.state as PaymentRow['state'],
    gateway_status: r.gateway_status as string | null,
    status: r.status as string,
    is_final: flag(r.is_final),
    fee_minor: pgIntegerOrNull(r.fee_minor, 'fee_minor'),
    fee_currency_code: r.fee_currency_code as string | null,
    failure_reason: r.failure_reason as string | null,
    processed_at: r.processed_at as string | null,
    is_test: r.is_test === null ? null : flag(r.is_test),
    last_error: r.last_error as string | null,
    attempts: pgInteger(r.attempts, 'attempts'),
    created_at: pgInteger(r.created_at, 'created_at'),
    updated_at: pgInteger(r.updated_at, 'updated_at'),
    accepted_at: pgIntegerOrNull(r.accepted_at, 'accepted_at'),
    final_at: pgIntegerOrNull(r.final_at, 'final_at'),
    next_poll_at: pgIntegerOrNull(r.next_poll_at, 'next_poll_at'),
    details_json: r.details_json as string | null,
    intent_id: r.intent_id as string | null,
    retry_of: r.retry_of as string | null,
    unknown_since: pgIntegerOrNull(r.unknown_since, 'unknown_since'),
    resend_refused: flag(r.resend_refused),
    not_found_since: pgIntegerOrNull(r.not_found_since, 'not_found_since'),
    not_found_reads: pgInteger(r.not_found_reads, 'not_found_reads'),
  };
}

/** A payments row read from PostgreSQL, as the payment record both journals answer with. */
export function toPgPayment(r: QueryResultRow): PaymentRecord {
  return toPayment(pgPaymentRow(r));
}

const SEARCHED = ['id', 'account_name', 'account_number', 'email_address', 'reference'] as const;

/**
 * A bound on an integer column (created_at, observed_at, seq) as SQLite compares it with an INTEGER column:
 * a fraction rounds up for both `>=` and `<` (integers only), NaN (bound as NULL by SQLite) matches nothing,
 * ±Infinity everything or nothing. PostgreSQL would refuse a fraction for a BIGINT parameter instead.
 */
export function integerBound(value: number, op: '>=' | '<'): { sql: 'TRUE' | 'FALSE' } | { value: number } {
  if (Number.isNaN(value)) return { sql: 'FALSE' };
  if (value === Number.POSITIVE_INFINITY || value > Number.MAX_SAFE_INTEGER) return { sql: op === '>=' ? 'FALSE' : 'TRUE' };
  if (value === Number.NEGATIVE_INFINITY || value < Number.MIN_SAFE_INTEGER) return { sql: op === '>=' ? 'TRUE' : 'FALSE' };
  return { value: Math.ceil(value) };
}

/** WHERE clause for a filter with $1… placeholders; `p.` is the payments alias. */
export function pgHistoryWhere(filter: HistoryFilter): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const anyOf = (column: string, values: string[]) => {
    if (values.length === 0) return;
    parts.push(values.length === 1 ? `${column} = ${bind(values[0])}` : `${column} = ANY(${bind(values)}::text[])`);
  };
  const terms = historyTerms(filter);
  anyOf('p.kind', terms.kinds);
  anyOf('p.status', terms.statuses);
  anyOf('p.currency_code', terms.currencyCodes);
  if (terms.batchId) parts.push(`p.batch_id = ${bind(terms.batchId)}`);
  for (const [value, op] of [[terms.from, '>='], [terms.to, '<']] as const) {
    if (value === undefined) continue;
    const bound = integerBound(value, op);
    parts.push('sql' in bound ? bound.sql : `p.created_at ${op} ${bind(bound.value)}::bigint`);
  }
  const text = terms.text;
  if (text.kind === 'trigram') {
    if (text.codePoints < 3) {
      parts.push('FALSE'); // as SQLite's trigram index, which finds nothing shorter than 3 code points
    } else {
      // search_text holds the folded fields joined by U+0001: a text without U+0001 found in it lies
      // inside one field, as FTS5 finds it. A text with U+0001 is tested field by field (no index).
      const pattern = `('%' || desk_fold(${bind(likeEscape(text.text))}::text) || '%')`;
      parts.push(
        text.text.includes('\u0001')
          ? `(${SEARCHED.map((c) => `desk_fold(p.${c}) LIKE ${pattern}`).join(' OR ')})`
          : `p.search_text LIKE ${pattern}`,
      );
    }
  } else if (text.kind === 'like') {
    // SQLite's LIKE ignores the case of ASCII letters only: so does ILIKE under the "C" collation.
    const pattern = bind(text.pattern);
    parts.push(`(${SEARCHED.map((c) => `p.${c} COLLATE "C" ILIKE ${pattern}`).join(' OR ')})`);
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

export interface PgHistoryOptions {
  /** Overrides the query's countLimit (HistoryQuery.countLimit: count at most this many matching rows). */
  countLimit?: number | undefined;
}

/**
 * One page of history and the number of rows the filter matches, as queryHistory gives it. The page and
 * the count run side by side on the pool (two snapshots: under concurrent writes the total may differ
 * from the rows by what was written in between, as it may between two page loads).
 */
export async function queryHistoryPg(db: PgQueryable, query: HistoryQuery, options: PgHistoryOptions = {}): Promise<HistoryPage> {
  const { pageSize, page, column, dir } = historyPaging(query);
  const where = pgHistoryWhere(query);
  const n = where.params.length;
  const limit = historyCountLimit(options.countLimit === undefined ? query : { countLimit: options.countLimit });
  // A capped count over a time range reads it in creation order: left free, PostgreSQL may count by a sequential
  // scan that starts where another scan of the table is (synchronized scans), sometimes far before the range,
  // 8 ms one time and 135 ms the next over 1,000,000 payouts; the range's index gives 11-13 ms every time.
  const ranged = query.from !== undefined || query.to !== undefined;
  const countSql = limit === null
    ? `SELECT COUNT(*) AS n FROM payments p ${where.sql}`
    : `SELECT COUNT(*) AS n FROM (SELECT 1 FROM payments p ${where.sql}${ranged ? ' ORDER BY p.created_at' : ''} LIMIT ${limit + 1}) AS capped`;
  const [rows, count] = await Promise.all([
    db.query(`SELECT p.* FROM payments p ${where.sql} ORDER BY p.${column} ${dir}, p.pk ${dir} LIMIT $${n + 1} OFFSET $${n + 2}`, [
      ...where.params, pageSize, page * pageSize,
    ]),
    db.query<{ n: string }>(countSql, where.params),
  ]);
  return { rows: rows.rows.map(toPgPayment), ...cappedTotal(pgInteger(count.rows[0]?.n, 'count'), limit), page, pageSize };
}

/**
 * Every row matching a filter, in creation order (for exports), read in chunks by key (created_at, pk),
 * so a long export holds no transaction or cursor open and stays linear however deep it goes.
 */
export async function* iterateHistoryPg(db: PgQueryable, filter: HistoryFilter, chunk = 1000): AsyncGenerator<PaymentRecord> {
  const where = pgHistoryWhere(filter);
  const n = where.params.length;
  let after: [number, number] | null = null;
  for (;;) {
    const keyset = after ? `${where.sql ? `${where.sql} AND` : 'WHERE'} (p.created_at, p.pk) > ($${n + 2}::bigint, $${n + 3}::bigint)` : where.sql;
    const result = await db.query(`SELECT p.* FROM payments p ${keyset} ORDER BY p.created_at, p.pk LIMIT $${n + 1}`, [
      ...where.params, chunk, ...(after ?? []),
    ]);
    for (const raw of result.rows) {
      const row = pgPaymentRow(raw);
      after = [row.created_at, row.pk];
      yield toPayment(row);
    }
    if (result.rows.length < chunk) return;
  }
}

export async function paymentTimelinePg(db: PgQueryable, kind: PaymentKind, id: string): Promise<StatusEvent[]> {
  const result = await db.query('SELECT * FROM status_events WHERE kind = $1 AND id = $2 ORDER BY seq', [kind, id]);
  return result.rows.map((r) =>
    toStatusEvent({
      seq: pgInteger(r.seq, 'seq'),
      kind: r.kind as PaymentKind,
      id: r.id as string,
      status: r.status as string,
      source: r.source as StatusEvent['source'],
      observed_at: pgInteger(r.observed_at, 'observed_at'),
      raw_json: r.raw_json as string | null,
    }),
  );
}
