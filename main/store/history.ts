// Read-side queries the UI and the CLI need: filtered, sorted, paged history; one payment's
// timeline; balance series; pending outgoing totals. All filters are bound parameters.
import type Database from 'better-sqlite3';
import { MAX_PAGE_SIZE } from '../../contract/limits';
import { toPayment, toStatusEvent, type PaymentRow, type StatusEventRow } from './rows';
import { prepared } from './sqlite/prepared';
import type {
  BalanceSnapshot, CurrencyTotal, PayoutActivityRow, PayoutOutcome, HistoryFilter, HistoryPage, HistoryQuery, HistorySortKey, PaymentKind, StatusEvent,
} from '../journal/types';

const SORT_COLUMNS: Record<HistorySortKey, string> = {
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  amountMinor: 'amount_minor',
  status: 'status',
  currencyCode: 'currency_code',
  id: 'id',
};


/**
 * Page, size and order of a history query, clamped (shared by the SQLite and PostgreSQL adapters):
 * rows are ordered by the sort column, then by pk in the same direction, so pages never overlap.
 */
export function historyPaging(query: HistoryQuery): { pageSize: number; page: number; column: string; dir: 'ASC' | 'DESC' } {
  return {
    pageSize: Math.min(Math.max(1, Math.trunc(query.pageSize ?? 50)), MAX_PAGE_SIZE),
    page: Math.max(0, Math.trunc(query.page ?? 0)),
    column: SORT_COLUMNS[query.sortBy ?? 'createdAt'],
    dir: query.sortDir === 'asc' ? 'ASC' : 'DESC',
  };
}

/**
 * How the free text of a filter searches (shared by both adapters). From 3 UTF-16 units on: a substring
 * of any one searched field, case-insensitively over Unicode (SQLite: the FTS5 trigram index, which
 * matches nothing when the text has fewer than 3 code points, e.g. an emoji and a letter: `trigram`
 * with `codePoints` < 3). Shorter: LIKE with % _ \ escaped, case-insensitive for ASCII letters only.
 */
export type HistoryText = { kind: 'none' } | { kind: 'trigram'; text: string; codePoints: number } | { kind: 'like'; pattern: string };

export function historyText(raw: string | undefined): HistoryText {
  const text = raw?.trim();
  if (!text) return { kind: 'none' };
  if (text.length >= 3) return { kind: 'trigram', text, codePoints: [...text].length };
  return { kind: 'like', pattern: `%${likeEscape(text)}%` };
}

/** Text made literal inside a LIKE pattern whose escape character is a backslash. */
export function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The conditions of a filter, normalised (shared by both adapters; each turns them into its SQL). */
export interface HistoryTerms {
  kinds: string[];
  statuses: string[];
  currencyCodes: string[];
  batchId: string | null;
  from: number | undefined;
  to: number | undefined;
  text: HistoryText;
}

export function historyTerms(filter: HistoryFilter): HistoryTerms {
  return {
    kinds: [...(filter.kind ? [filter.kind] : []), ...(filter.kinds ?? [])],
    statuses: (filter.statuses ?? []).map((s) => s.toUpperCase()),
    currencyCodes: [...(filter.currencyCode ? [filter.currencyCode] : []), ...(filter.currencyCodes ?? [])].map((c) => c.toUpperCase()),
    batchId: filter.batchId || null,
    from: filter.from,
    to: filter.to,
    text: historyText(filter.text),
  };
}

type Param = string | number;

/** WHERE clause for a filter; `p.` is the payments alias. */
export function historyWhere(filter: HistoryFilter): { sql: string; params: Param[] } {
  const parts: string[] = [];
  const params: Param[] = [];
  const anyOf = (column: string, values: string[]) => {
    if (values.length === 0) return;
    parts.push(values.length === 1 ? `${column} = ?` : `${column} IN (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  };
  const terms = historyTerms(filter);
  anyOf('p.kind', terms.kinds);
  anyOf('p.status', terms.statuses);
  anyOf('p.currency_code', terms.currencyCodes);
  if (terms.batchId) {
    parts.push('p.batch_id = ?');
    params.push(terms.batchId);
  }
  if (terms.from !== undefined) {
    parts.push('p.created_at >= ?');
    params.push(terms.from);
  }
  if (terms.to !== undefined) {
    parts.push('p.created_at < ?');
    params.push(terms.to);
  }
  const text = terms.text;
  if (text.kind === 'trigram') {
    // Trigram index: a quoted phrase matches any substring, case-insensitively.
    parts.push('p.pk IN (SELECT rowid FROM payments_text WHERE payments_text MATCH ?)');
    params.push(`"${text.text.replace(/"/g, '""')}"`);
  } else if (text.kind === 'like') {
    parts.push(`(p.id LIKE ? ESCAPE '\\' OR p.account_name LIKE ? ESCAPE '\\' OR p.account_number LIKE ? ESCAPE '\\'
      OR p.email_address LIKE ? ESCAPE '\\' OR p.reference LIKE ? ESCAPE '\\')`);
    params.push(text.pattern, text.pattern, text.pattern, text.pattern, text.pattern);
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

/** A query's count limit, clamped to a whole number of rows; null: count exactly. */
export function historyCountLimit(query: HistoryQuery): number | null {
  return query.countLimit === undefined ? null : Math.max(0, Math.trunc(query.countLimit));
}

/** The page's total and whether it stopped at the count limit (counted up to limit + 1 to tell). */
export function cappedTotal(counted: number, limit: number | null): Pick<HistoryPage, 'total' | 'totalCapped'> {
  return limit !== null && counted > limit ? { total: limit, totalCapped: true } : { total: counted };
}

/**
 * The plain query: what a page and its total are. The SQLite journal answers with `queryHistoryPlanned`
 * (sqlite/history-plan.ts), which gives the same results with less work over a large table and is tested against this.
 */
export function queryHistory(db: Database.Database, query: HistoryQuery): HistoryPage {
  const { pageSize, page, column, dir } = historyPaging(query);
  const where = historyWhere(query);
  const limit = historyCountLimit(query);
  const rows = db
    .prepare(`SELECT p.* FROM payments p ${where.sql} ORDER BY p.${column} ${dir}, p.pk ${dir} LIMIT ? OFFSET ?`)
    .all(...where.params, pageSize, page * pageSize) as PaymentRow[];
  const counted = limit === null
    ? (db.prepare(`SELECT COUNT(*) AS n FROM payments p ${where.sql}`).get(...where.params) as { n: number }).n
    : (db.prepare(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM payments p ${where.sql} LIMIT ?)`).get(...where.params, limit + 1) as { n: number }).n;
  return { rows: rows.map(toPayment), ...cappedTotal(counted, limit), page, pageSize };
}

/** Every row matching a filter, in creation order, streamed (for exports). */
export function* iterateHistory(db: Database.Database, filter: HistoryFilter): Generator<ReturnType<typeof toPayment>> {
  const where = historyWhere(filter);
  const rows = db.prepare(`SELECT p.* FROM payments p ${where.sql} ORDER BY p.created_at, p.pk`).iterate(...where.params) as IterableIterator<PaymentRow>;
  for (const row of rows) yield toPayment(row);
}

export function paymentTimeline(db: Database.Database, kind: PaymentKind, id: string): StatusEvent[] {
  const rows = db.prepare('SELECT * FROM status_events WHERE kind = ? AND id = ? ORDER BY seq').all(kind, id) as StatusEventRow[];
  return rows.map(toStatusEvent);
}

export function balanceSeries(db: Database.Database, currencyCode: string, from?: number, to?: number): BalanceSnapshot[] {
  const rows = db
    .prepare(
      `SELECT currency_code, available_minor, reserved_minor, observed_at FROM balance_snapshots
       WHERE currency_code = ? AND observed_at >= ? AND observed_at < ? ORDER BY observed_at, seq`,
    )
    .all(currencyCode, from ?? 0, to ?? Number.MAX_SAFE_INTEGER) as {
    currency_code: string; available_minor: number; reserved_minor: number; observed_at: number;
  }[];
  return rows.map((r) => ({ currencyCode: r.currency_code, availableMinor: r.available_minor, reservedMinor: r.reserved_minor, observedAt: r.observed_at }));
}

/** Latest snapshot per currency. */
export function latestBalances(db: Database.Database): BalanceSnapshot[] {
  const rows = prepared(
    db,
    `SELECT b.currency_code, b.available_minor, b.reserved_minor, b.observed_at FROM balance_snapshots b
     WHERE b.seq = (SELECT MAX(seq) FROM balance_snapshots x WHERE x.currency_code = b.currency_code)
     ORDER BY b.currency_code`,
  ).all() as { currency_code: string; available_minor: number; reserved_minor: number; observed_at: number }[];
  return rows.map((r) => ({ currencyCode: r.currency_code, availableMinor: r.available_minor, reservedMinor: r.reserved_minor, observedAt: r.observed_at }));
}

/**
 * Outgoing money not yet settled, per currency: payouts queued, being sent, or accepted and not final.
 * SUM over INTEGER columns is exact in SQLite (it raises on overflow rather than rounding).
 */
export function pendingPayoutTotals(db: Database.Database): CurrencyTotal[] {
  const rows = db
    .prepare(
      // INDEXED BY: without ANALYZE statistics SQLite would rather walk payments_kind_created, every payout.
      `SELECT currency_code, SUM(amount_minor) AS total, COUNT(*) AS n FROM payments INDEXED BY payments_pending
       WHERE kind = 'payout' AND is_final = 0 AND state IN ('QUEUED', 'SENDING', 'UNKNOWN', 'HELD', 'ACCEPTED')
       GROUP BY currency_code ORDER BY currency_code`,
    )
    .all() as { currency_code: string; total: number; n: number }[];
  return rows.map((r) => ({ currencyCode: r.currency_code, amountMinor: r.total, count: r.n }));
}

/**
 * The SQL of payoutActivity for both back ends: `param(i)` writes the placeholder of dayStarts[i]. The day is the
 * last start at or before the acceptance (starts are local midnights, so a day of 23 or 25 hours counts right);
 * the outcome as the Overview names it. Read from one covering index (payments_accepted) on both back ends.
 */
export function payoutActivitySql(days: number, param: (i: number) => string, dialect: 'sqlite' | 'pg'): string {
  const notFinal = dialect === 'pg' ? 'NOT is_final' : 'is_final = 0';
  // SQLite without ANALYZE statistics (the app never runs it) would rather walk payments_kind_created.
  const from = dialect === 'pg' ? 'payments' : 'payments INDEXED BY payments_accepted';
  const day = Array.from({ length: days - 1 }, (_, k) => days - 1 - k)
    .map((i) => `WHEN accepted_at >= ${param(i)} THEN ${i}`)
    .join(' ');
  return `SELECT currency_code, fee_currency_code, ${days > 1 ? `CASE ${day} ELSE 0 END` : '0'} AS day,
      CASE WHEN ${notFinal} THEN 'inFlight' WHEN upper(status) = 'SUCCESS' THEN 'succeeded' WHEN upper(status) = 'RETURNED' THEN 'returned' ELSE 'failed' END AS outcome,
      COUNT(*) AS n, SUM(amount_minor) AS total, COALESCE(SUM(fee_minor), 0) AS fees
    FROM ${from} WHERE kind = 'payout' AND accepted_at IS NOT NULL AND accepted_at >= ${param(0)}
    GROUP BY currency_code, fee_currency_code, day, outcome`;
}

/** Payouts accepted since dayStarts[0], by currency, day, outcome and fee currency (see JournalPort.payoutActivity). */
export function payoutActivity(db: Database.Database, dayStarts: number[]): PayoutActivityRow[] {
  if (dayStarts.length === 0) return [];
  const rows = db.prepare(payoutActivitySql(dayStarts.length, (i) => `@d${i}`, 'sqlite')).all(Object.fromEntries(dayStarts.map((ms, i) => [`d${i}`, ms]))) as {
    currency_code: string; fee_currency_code: string | null; day: number; outcome: PayoutOutcome; n: number; total: number; fees: number;
  }[];
  return rows.map((r) => ({ currencyCode: r.currency_code, day: r.day, outcome: r.outcome, count: r.n, amountMinor: r.total, feeCurrencyCode: r.fee_currency_code, feeMinor: r.fees }));
}
