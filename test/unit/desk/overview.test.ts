// The Overview (home screen) from the journal's figures: today and the last seven days per currency, outcomes,
// fees where they were charged, rates, balances; local days that follow the clock change.
import { describe, expect, it } from 'vitest';
import { inTimeZone } from '../support/time-zone';
import { buildOverview, localDayStarts, percentText } from '../../../main/desk/overview';
import type { DeskJournal } from '../../../main/journal/port';
import type { BalanceSnapshot, CurrencyTotal, PayoutActivityRow } from '../../../main/journal/types';

const decimalsOf = (code: string) => (code === 'KWD' ? 3 : code === 'JPY' ? 0 : 2);

function journalWith(rows: PayoutActivityRow[], balances: BalanceSnapshot[] = [], pending: CurrencyTotal[] = []): DeskJournal & { asked: number[][] } {
  const asked: number[][] = [];
  const fake = {
    asked,
    payoutActivity: (starts: number[]) => (asked.push(starts), rows),
    latestBalances: () => balances,
    pendingPayoutTotals: () => pending,
  };
  return fake as unknown as DeskJournal & { asked: number[][] };
}

const row = (day: number, outcome: PayoutActivityRow['outcome'], count: number, amountMinor: number, extra: Partial<PayoutActivityRow> = {}): PayoutActivityRow => ({
  currencyCode: 'EUR', day, outcome, count, amountMinor, feeCurrencyCode: null, feeMinor: 0, ...extra,
});

inTimeZone('Europe/Berlin');

describe('the Overview', () => {
  it('starts each of the seven days at local midnight, a 23-hour day included, today last', () => {
    // 2026-03-30 10:00 in Berlin; the clocks went forward on Sunday 29 March.
    const starts = localDayStarts(Date.UTC(2026, 2, 30, 8));
    expect(starts.map((ms) => new Date(ms).toISOString())).toEqual([
      '2026-03-23T23:00:00.000Z', '2026-03-24T23:00:00.000Z', '2026-03-25T23:00:00.000Z', '2026-03-26T23:00:00.000Z',
      '2026-03-27T23:00:00.000Z', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z',
    ]);
  });

  it('counts today within the seven days, by outcome, with exact sums, fees where they were charged, and rates', async () => {
    const now = Date.UTC(2026, 10, 27, 11);
    const journal = journalWith(
      [
        row(0, 'succeeded', 3, 30_000, { feeCurrencyCode: 'EUR', feeMinor: 150 }),
        row(2, 'failed', 1, 999),
        row(6, 'succeeded', 2, 10_001, { feeCurrencyCode: 'EUR', feeMinor: 40 }),
        row(6, 'returned', 1, 5_000, { feeCurrencyCode: 'EUR', feeMinor: 20 }),
        row(6, 'inFlight', 4, 4_004),
        // A KWD payout whose fee was charged in USD: the fee counts with USD's figures.
        row(5, 'succeeded', 1, 1_234, { currencyCode: 'KWD', feeCurrencyCode: 'USD', feeMinor: 7 }),
      ],
      [{ currencyCode: 'EUR', availableMinor: 1_000_000, reservedMinor: 0, observedAt: now - 60_000 }],
      [{ currencyCode: 'EUR', amountMinor: 4_004, count: 4 }],
    );
    const view = await buildOverview(journal, decimalsOf, now);
    expect(journal.asked).toEqual([localDayStarts(now)]);
    expect(view.dayStarts).toHaveLength(7);
    expect(view.dayStarts[6]).toBe('2026-11-26T23:00:00.000Z');
    expect(view.currencies.map((c) => c.currencyCode)).toEqual(['EUR', 'KWD', 'USD']);
    const eur = view.currencies[0]!;
    expect(eur.today).toEqual({
      sent: { count: 7, amount: { amount: '190.05', currencyCode: 'EUR' } },
      succeeded: { count: 2, amount: { amount: '100.01', currencyCode: 'EUR' } },
      failed: { count: 0, amount: { amount: '0.00', currencyCode: 'EUR' } },
      returned: { count: 1, amount: { amount: '50.00', currencyCode: 'EUR' } },
      inFlight: { count: 4, amount: { amount: '40.04', currencyCode: 'EUR' } },
      fees: { amount: '0.60', currencyCode: 'EUR' },
      failureRatePercent: '0.0',
      returnRatePercent: '33.3',
    });
    expect(eur.lastSevenDays.sent).toEqual({ count: 11, amount: { amount: '500.04', currencyCode: 'EUR' } });
    expect(eur.lastSevenDays.fees).toEqual({ amount: '2.10', currencyCode: 'EUR' });
    // 1 failed of 7 final; 1 returned of 6 paid.
    expect([eur.lastSevenDays.failureRatePercent, eur.lastSevenDays.returnRatePercent]).toEqual(['14.3', '16.7']);
    expect(eur.sentByDay.map((d) => [d.count, d.amount.amount])).toEqual([
      [3, '300.00'], [0, '0.00'], [1, '9.99'], [0, '0.00'], [0, '0.00'], [0, '0.00'], [7, '190.05'],
    ]);
    expect(eur.available).toEqual({ amount: '10000.00', currencyCode: 'EUR' });
    expect(eur.pendingOutgoing).toEqual({ amount: '40.04', currencyCode: 'EUR' });
    expect(eur.balanceObservedAt).toBe(new Date(now - 60_000).toISOString());
    const kwd = view.currencies[1]!;
    expect(kwd.lastSevenDays.sent.amount).toEqual({ amount: '1.234', currencyCode: 'KWD' });
    expect(kwd.lastSevenDays.fees.amount).toBe('0.000');
    expect(kwd.today.sent.count).toBe(0);
    expect([kwd.available, kwd.balanceObservedAt]).toEqual([null, null]);
    const usd = view.currencies[2]!;
    expect(usd.lastSevenDays.fees).toEqual({ amount: '0.07', currencyCode: 'USD' });
    expect(usd.lastSevenDays.sent.count).toBe(0);
    expect([usd.lastSevenDays.failureRatePercent, usd.lastSevenDays.returnRatePercent]).toEqual([null, null]);
  });

  it('shows a currency with a balance and nothing sent, and is empty on a new journal', async () => {
    const now = Date.UTC(2026, 10, 27, 11);
    expect((await buildOverview(journalWith([]), decimalsOf, now)).currencies).toEqual([]);
    const view = await buildOverview(journalWith([], [{ currencyCode: 'JPY', availableMinor: 5_000, reservedMinor: 0, observedAt: now }]), decimalsOf, now);
    expect(view.currencies).toHaveLength(1);
    expect(view.currencies[0]).toMatchObject({ currencyCode: 'JPY', available: { amount: '5000', currencyCode: 'JPY' }, pendingOutgoing: { amount: '0', currencyCode: 'JPY' } });
    expect(view.currencies[0]!.today.sent.count).toBe(0);
  });

  it('refuses a total beyond the exact integers with an error naming the currency, rather than showing it rounded', async () => {
    const now = Date.UTC(2026, 10, 27, 11);
    const half = 2 ** 52;
    // Two days' sums that each fit but whose total (2^53) is one past Number.MAX_SAFE_INTEGER.
    const tooMuch = journalWith([row(5, 'succeeded', 1, half), row(6, 'succeeded', 1, half)]);
    await expect(buildOverview(tooMuch, decimalsOf, now)).rejects.toMatchObject({ code: 'AMOUNT_RANGE', message: expect.stringContaining('in EUR') });
    // The same with one minor unit less adds up exactly.
    const justFits = journalWith([row(5, 'succeeded', 1, half), row(6, 'succeeded', 1, half - 1)]);
    const eur = (await buildOverview(justFits, decimalsOf, now)).currencies[0]!;
    expect(eur.lastSevenDays.sent.amount.amount).toBe('90071992547409.91');
    // Fees in another currency are added with the same care.
    const fees = journalWith([
      row(5, 'succeeded', 1, 100, { feeCurrencyCode: 'USD', feeMinor: half }),
      row(6, 'succeeded', 1, 100, { feeCurrencyCode: 'USD', feeMinor: half }),
    ]);
    await expect(buildOverview(fees, decimalsOf, now)).rejects.toMatchObject({ code: 'AMOUNT_RANGE', message: expect.stringContaining('in USD') });
  });

  it('writes a rate in percent with one decimal, rounded half up, by integer arithmetic', () => {
    expect([percentText(0, 0), percentText(0, 3), percentText(1, 3), percentText(2, 3), percentText(1, 8), percentText(3, 3)]).toEqual([null, '0.0', '33.3', '66.7', '12.5', '100.0']);
    expect(percentText(1, 2_000)).toBe('0.1');
    expect(percentText(1, 2_001)).toBe('0.0');
  });
});
