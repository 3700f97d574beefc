// A month of one profile's payments and balance reads, as the journal gives them to a statement (statementPayments,
// balanceAt, balanceSeries, latestBalances), for the statement's tests.
import type { DeskJournal } from '../../../main/journal/port';
import type { BalanceSnapshot, StatementPaymentRow } from '../../../main/journal/types';

export const decimalsOf = (code: string) => (code === 'KWD' ? 3 : code === 'JPY' ? 0 : 2);
export const at = (text: string) => Date.parse(text);
export const NOV = { from: at('2026-11-01T00:00:00Z'), to: at('2026-12-01T00:00:00Z') };
export const LATER = at('2026-12-05T00:00:00Z');

export function journalOf(reads: BalanceSnapshot[], payments: StatementPaymentRow[]): DeskJournal & { asked: [number, number][] } {
  const asked: [number, number][] = [];
  const ordered = [...reads].sort((a, b) => a.observedAt - b.observedAt);
  const fake = {
    asked,
    latestBalances: () => [...new Map(ordered.map((r) => [r.currencyCode, r])).values()],
    balanceAt: (code: string, t: number) => ordered.filter((r) => r.currencyCode === code && r.observedAt <= t).at(-1) ?? null,
    balanceSeries: (code: string, from = 0, to = Number.MAX_SAFE_INTEGER) => ordered.filter((r) => r.currencyCode === code && r.observedAt >= from && r.observedAt < to),
    statementPayments: (since: number, acceptedBy: number) => (asked.push([since, acceptedBy]), payments),
  };
  return fake as unknown as DeskJournal & { asked: [number, number][] };
}

export const read = (when: string, availableMinor: number, reservedMinor = 0, currencyCode = 'EUR'): BalanceSnapshot => ({ currencyCode, availableMinor, reservedMinor, observedAt: at(when) });

export function payout(id: string, amountMinor: number, status: string, processedAt: string | null, extra: Partial<StatementPaymentRow> = {}): StatementPaymentRow {
  return {
    kind: 'payout', id, currencyCode: 'EUR', amountMinor, feeCurrencyCode: 'EUR', feeMinor: 0, status,
    isFinal: processedAt !== null, processedAt, acceptedAt: at('2026-10-01T00:00:00Z'), successRaw: [], ...extra,
  };
}
export const payin = (id: string, amountMinor: number, processedAt: string): StatementPaymentRow => ({ ...payout(id, amountMinor, 'SUCCESS', processedAt), kind: 'payin', feeCurrencyCode: null, feeMinor: null, acceptedAt: null });
export const successBody = (processedAt: string) => JSON.stringify({ process: { status: 'SUCCESS', processedAt } });

/** A month of EUR: a payout in flight at the opening read, a return of October's payout, a failure, a payin, one in flight at the end. */
export const november = [
  payout('p0-in-flight-at-opening', 5_000, 'SUCCESS', '2026-11-01T09:00:00.000Z', { feeMinor: 50, acceptedAt: at('2026-10-31T10:00:00Z') }),
  payout('p-october-returned', 2_000, 'RETURNED', '2026-11-03T10:00:00.000Z', { feeMinor: 20, successRaw: [successBody('2026-10-20T10:00:00.000Z')] }),
  payout('p-between-read-and-start', 1_000, 'SUCCESS', '2026-10-31T18:00:00.000Z', { feeMinor: 10 }),
  payout('p1', 10_000, 'SUCCESS', '2026-11-10T10:00:00.000Z', { feeMinor: 100 }),
  payout('p2-failed', 3_000, 'FAILED', '2026-11-12T10:00:00.000Z'),
  payin('i1', 20_000, '2026-11-15T10:00:00.000Z'),
  payout('p3-in-flight-at-close', 4_000, 'PROCESSING', null, { feeMinor: 40, acceptedAt: at('2026-11-30T20:00:00Z') }),
  payout('p4-after-the-end', 500, 'SUCCESS', '2026-12-01T07:00:00.000Z', { feeMinor: 5, acceptedAt: at('2026-11-30T21:00:00Z') }),
];
// Opening total 1,050.50; the period −50.50 + 20.00 − 101.00 + 200.00; before the start −10.10; after the end −5.05.
export const OPENING = read('2026-10-31T12:00:00Z', 100_000, 5_050);
export const CLOSING_TOTAL = 105_050 + 6_850 - 1_010 - 505;
export const CLOSING = read('2026-12-01T08:00:00Z', CLOSING_TOTAL - 4_040, 4_040);

