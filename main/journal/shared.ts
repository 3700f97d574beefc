// What both journals (the single desk's SQLite file and the team's PostgreSQL) share beyond the port's types:
// their error, which states the gateway may not have yet, and the per-currency totals of new rows.
import { sumMinor } from '../domain/money';
import type { CurrencyTotal, NewPayment, PaymentState } from './types';
import { CodedError } from '../domain/coded-error';

export class JournalError extends CodedError<'DUPLICATE_ID' | 'NOT_FOUND' | 'EMPTY_BATCH' | 'NOTHING_TO_RETRY' | 'RETRY_ROWS_CHANGED' | 'DATABASE_UNREACHABLE'> {
  constructor(
    code: 'DUPLICATE_ID' | 'NOT_FOUND' | 'EMPTY_BATCH' | 'NOTHING_TO_RETRY' | 'RETRY_ROWS_CHANGED' | 'DATABASE_UNREACHABLE',
    message: string,
    readonly ids: string[] = [],
  ) {
    super(code, message);
  }
}

/** States of a payment the gateway may not have yet. */
export const UNSENT_STATES: readonly PaymentState[] = ['QUEUED', 'SENDING', 'UNKNOWN'];

export function totalsOf(rows: NewPayment[]): CurrencyTotal[] {
  const by = new Map<string, number[]>();
  for (const r of rows) {
    const list = by.get(r.currencyCode) ?? [];
    list.push(r.amountMinor);
    by.set(r.currencyCode, list);
  }
  return [...by.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currencyCode, amounts]) => ({ currencyCode, amountMinor: sumMinor(amounts), count: amounts.length }));
}
