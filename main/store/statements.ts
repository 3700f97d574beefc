// The journal's reads for a statement (main/statements/build.ts), one SQL text for both back ends: the payments that
// may have moved money since a window began, and a currency's balance as last read at a moment. A returned payout
// also brings the raw bodies of its SUCCESS observations: the gateway moves processedAt to the time of the return,
// and the statement counts the payout as paid in the period it was paid.
import type Database from 'better-sqlite3';
import type { BalanceSnapshot, PaymentKind, StatementPaymentRow } from '../journal/types';

export type Dialect = 'sqlite' | 'pg';

/** Final payments stored or changed since `since`, and payouts accepted by `acceptedBy` and not final yet; in no order (the statement orders what it lists). */
export function statementPaymentsSql(dialect: Dialect, since: string, acceptedBy: string): string {
  const [final, open] = dialect === 'pg' ? ['is_final', 'NOT is_final'] : ['is_final = 1', 'is_final = 0'];
  return `SELECT kind, id, currency_code, amount_minor, fee_currency_code, fee_minor, status, is_final, processed_at, accepted_at
    FROM payments
    WHERE (${final} AND updated_at >= ${since})
       OR (kind = 'payout' AND ${open} AND accepted_at IS NOT NULL AND accepted_at <= ${acceptedBy})`;
}

/** The newest snapshot of a currency at or before a moment (index balance_snapshots_currency). */
export function balanceAtSql(currencyCode: string, at: string): string {
  return `SELECT currency_code, available_minor, reserved_minor, observed_at FROM balance_snapshots
    WHERE currency_code = ${currencyCode} AND observed_at <= ${at} ORDER BY observed_at DESC, seq DESC LIMIT 1`;
}

/** The SUCCESS bodies of many returned payouts at once (SQLite: the ids as one JSON array parameter). */
export const SUCCESS_RAW_OF_MANY_SQLITE = `SELECT e.id, e.raw_json FROM status_events e
    WHERE e.kind = 'payout' AND e.id IN (SELECT value FROM json_each(?)) AND upper(e.status) = 'SUCCESS' AND e.raw_json IS NOT NULL
    ORDER BY e.seq`;

/** Returned payouts' SUCCESS bodies, by id, in observation order. */
export function groupSuccessRaw(rows: Iterable<{ id: string; raw_json: string }>): Map<string, string[]> {
  const byId = new Map<string, string[]>();
  for (const r of rows) {
    const list = byId.get(r.id);
    if (list) list.push(r.raw_json);
    else byId.set(r.id, [r.raw_json]);
  }
  return byId;
}

// Rows as arrays (better-sqlite3's raw mode): a month of a busy merchant is hundreds of thousands of rows.
type RawRow = [PaymentKind, string, string, number, string | null, number | null, string, number, string | null, number | null];

export function statementPayments(db: Database.Database, since: number, acceptedBy: number): StatementPaymentRow[] {
  const rows = db.prepare(statementPaymentsSql('sqlite', '@since', '@acceptedBy')).raw().all({ since, acceptedBy }) as RawRow[];
  const returned = rows.filter((r) => r[0] === 'payout' && r[6].toUpperCase() === 'RETURNED').map((r) => r[1]);
  const successes = returned.length ? groupSuccessRaw(db.prepare(SUCCESS_RAW_OF_MANY_SQLITE).all(JSON.stringify(returned)) as { id: string; raw_json: string }[]) : new Map<string, string[]>();
  return rows.map((r) => ({
    kind: r[0],
    id: r[1],
    currencyCode: r[2],
    amountMinor: r[3],
    feeCurrencyCode: r[4],
    feeMinor: r[5],
    status: r[6],
    isFinal: r[7] === 1,
    processedAt: r[8],
    acceptedAt: r[9],
    successRaw: successes.get(r[1]) ?? [],
  }));
}

export function balanceAt(db: Database.Database, currencyCode: string, at: number): BalanceSnapshot | null {
  const r = db.prepare(balanceAtSql('?', '?')).get(currencyCode, at) as { currency_code: string; available_minor: number; reserved_minor: number; observed_at: number } | undefined;
  return r ? { currencyCode: r.currency_code, availableMinor: r.available_minor, reservedMinor: r.reserved_minor, observedAt: r.observed_at } : null;
}
