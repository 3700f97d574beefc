// The journal's reads for a statement (main/desk/statement.ts), one SQL text for both back ends: the payments that
// may have moved money since a window began, and a currency's balance as last read at a moment. A returned payout
// also brings the raw bodies of its SUCCESS observations: the gateway moves processedAt to the time of the return,
// and the statement counts the payout as paid in the period it was paid.
import type Database from 'better-sqlite3';
import type { BalanceSnapshot, PaymentKind, StatementPaymentRow } from '../journal/types';

export type Dialect = 'sqlite' | 'pg';

/** Final payments stored or changed since `since`, and payouts accepted by `acceptedBy` and not final yet. */
export function statementPaymentsSql(dialect: Dialect, since: string, acceptedBy: string): string {
  const [final, open] = dialect === 'pg' ? ['is_final', 'NOT is_final'] : ['is_final = 1', 'is_final = 0'];
  return `SELECT kind, id, currency_code, amount_minor, fee_currency_code, fee_minor, status, is_final, processed_at, accepted_at
    FROM payments
    WHERE (${final} AND updated_at >= ${since})
       OR (kind = 'payout' AND ${open} AND accepted_at IS NOT NULL AND accepted_at <= ${acceptedBy})
    ORDER BY created_at, pk`;
}

/** The SUCCESS observations of one payout, oldest first (index status_events_payment). */
export function successRawSql(id: string): string {
  return `SELECT raw_json FROM status_events WHERE kind = 'payout' AND id = ${id} AND upper(status) = 'SUCCESS' AND raw_json IS NOT NULL ORDER BY seq`;
}

/** The newest snapshot of a currency at or before a moment (index balance_snapshots_currency). */
export function balanceAtSql(currencyCode: string, at: string): string {
  return `SELECT currency_code, available_minor, reserved_minor, observed_at FROM balance_snapshots
    WHERE currency_code = ${currencyCode} AND observed_at <= ${at} ORDER BY observed_at DESC, seq DESC LIMIT 1`;
}

export interface StatementPaymentDbRow {
  kind: PaymentKind;
  id: string;
  currency_code: string;
  amount_minor: number;
  fee_currency_code: string | null;
  fee_minor: number | null;
  status: string;
  is_final: boolean;
  processed_at: string | null;
  accepted_at: number | null;
}

export function toStatementPayment(r: StatementPaymentDbRow, successRaw: string[]): StatementPaymentRow {
  return {
    kind: r.kind,
    id: r.id,
    currencyCode: r.currency_code,
    amountMinor: r.amount_minor,
    feeCurrencyCode: r.fee_currency_code,
    feeMinor: r.fee_minor,
    status: r.status,
    isFinal: r.is_final,
    processedAt: r.processed_at,
    acceptedAt: r.accepted_at,
    successRaw,
  };
}

export const isReturnedPayout = (r: { kind: PaymentKind; status: string }): boolean => r.kind === 'payout' && r.status.toUpperCase() === 'RETURNED';

export function statementPayments(db: Database.Database, since: number, acceptedBy: number): StatementPaymentRow[] {
  const rows = db.prepare(statementPaymentsSql('sqlite', '@since', '@acceptedBy')).all({ since, acceptedBy }) as (Omit<StatementPaymentDbRow, 'is_final'> & { is_final: number })[];
  const successes = db.prepare(successRawSql('?')).pluck();
  return rows.map((r) => toStatementPayment({ ...r, is_final: r.is_final === 1 }, isReturnedPayout(r) ? (successes.all(r.id) as string[]) : []));
}

export function balanceAt(db: Database.Database, currencyCode: string, at: number): BalanceSnapshot | null {
  const r = db.prepare(balanceAtSql('?', '?')).get(currencyCode, at) as { currency_code: string; available_minor: number; reserved_minor: number; observed_at: number } | undefined;
  return r ? { currencyCode: r.currency_code, availableMinor: r.available_minor, reservedMinor: r.reserved_minor, observedAt: r.observed_at } : null;
}
