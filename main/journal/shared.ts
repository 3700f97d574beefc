// What both journals (the single desk's SQLite file and the team's PostgreSQL) share beyond the port's types:
// their error, which states the gateway may not have yet, the per-currency totals of new rows, and what a new
// batch must be before either stores it.
import { sumMinor } from '../domain/money';
import type { BatchInput, CurrencyTotal, NewPayment, PaymentState } from './types';
import { CodedError } from '../domain/coded-error';

export type JournalErrorCode = 'DUPLICATE_ID' | 'DUPLICATE_PAYMENT_RUN_REF' | 'NOT_FOUND' | 'EMPTY_BATCH' | 'NOTHING_TO_RETRY' | 'RETRY_ROWS_CHANGED' | 'DATABASE_UNREACHABLE';

export class JournalError extends CodedError<JournalErrorCode> {
  constructor(
    code: JournalErrorCode,
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

/**
 * A new batch as either journal stores it: refused when it is empty or repeats a payout id within itself
 * (ids already in the journal are the store's check); its payout ids and per-currency totals.
 */
export function checkedBatch(input: BatchInput): { ids: string[]; totals: CurrencyTotal[] } {
  if (input.rows.length === 0) throw new JournalError('EMPTY_BATCH', 'a batch needs at least one payout');
  const ids = input.rows.map((r) => r.id);
  const seen = new Set<string>();
  const repeated = ids.filter((x) => (seen.has(x) ? true : (seen.add(x), false)));
  if (repeated.length > 0) throw new JournalError('DUPLICATE_ID', `the batch repeats payout ids: ${repeated.slice(0, 5).join(', ')}`, repeated);
  return { ids, totals: totalsOf(input.rows) };
}
