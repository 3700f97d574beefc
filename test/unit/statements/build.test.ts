// A period statement from the journal's payments and balance reads: it reconciles opening to closing through what
// was processed in the period (by the gateway's processedAt), says what moved between a read and the period's edge,
// names what it cannot explain, and counts a returned payout as paid when it was paid.
import { describe, expect, it } from 'vitest';
import { buildStatement } from '../../../main/statements/build';

import { at, CLOSING, decimalsOf, journalOf, LATER, NOV, november, OPENING, payout, read } from './fixtures';

describe('a period statement', () => {
  it('reconciles a month to the minor unit: paid, fees, a failure, a return of an earlier payout, a payin, and what moved at the edges', async () => {
    const journal = journalOf([read('2026-10-01T00:00:00Z', 1), OPENING, CLOSING], november);
    const view = await buildStatement(journal, decimalsOf, NOV, null, LATER);
    expect(view).toMatchObject({ from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z', generatedAt: new Date(LATER).toISOString() });
    // Payments are asked for from a day before the opening read; payouts in flight up to the closing read.
    expect(journal.asked).toEqual([[OPENING.observedAt - 86_400_000, CLOSING.observedAt]]);
    const [eur] = view.currencies;
    expect(view.currencies).toHaveLength(1);
    expect(eur).toMatchObject({
      currencyCode: 'EUR',
      opening: { available: { amount: '1000.00' }, reserved: { amount: '50.50' }, total: { amount: '1050.50' }, observedAt: '2026-10-31T12:00:00.000Z', source: 'read' },
      closing: { total: { amount: '1103.85' }, reserved: { amount: '40.40' }, source: 'read' },
      // The October payout returned in November was paid in October: not in November's paid figures.
      paid: { count: 2, amount: { amount: '150.00', currencyCode: 'EUR' } },
      fees: { amount: '1.50', currencyCode: 'EUR' },
      failed: { count: 1, amount: { amount: '30.00' } },
      returned: { count: 1, amount: { amount: '20.00' } },
      payins: { count: 1, amount: { amount: '200.00' } },
      expectedClosing: { amount: '1103.85' },
      difference: { amount: '0.00' },
      reconciled: true,
    });
    expect(eur!.lines.map((l) => [l.kind, l.amount?.amount ?? null])).toEqual([
      ['beforePeriod', '-10.10'],
      ['afterPeriod', '-5.05'],
      ['closingRead', null],
      ['inFlight', null],
    ]);
    expect(eur!.lines.find((l) => l.kind === 'inFlight')!.text).toContain('1 payout was accepted and not yet processed at the closing read: 40.40 EUR');
    // Of the read 31 hours before the end and the one 8 hours after it, the nearer closes the period.
    expect(eur!.lines.find((l) => l.kind === 'closingRead')!.text).toBe('The closing balance is the first read after the end, of 2026-12-01 08:00 UTC.');
    const nearerBefore = await buildStatement(journalOf([OPENING, read('2026-11-30T20:00:00Z', 1), read('2026-12-02T00:00:00Z', 2)], november), decimalsOf, NOV, null, LATER);
    expect(nearerBefore.currencies[0]!.closing).toMatchObject({ observedAt: '2026-11-30T20:00:00.000Z', total: { amount: '0.01' } });
  });

  it('names a difference it cannot explain, with its amount', async () => {
    const topUp = { ...CLOSING, availableMinor: CLOSING.availableMinor + 1_234 };
    const [eur] = (await buildStatement(journalOf([OPENING, topUp], november), decimalsOf, NOV, null, LATER)).currencies;
    expect(eur).toMatchObject({ reconciled: false, difference: { amount: '12.34' }, expectedClosing: { amount: '1103.85' } });
    const unexplained = eur!.lines.find((l) => l.kind === 'unexplained')!;
    expect(unexplained.amount).toEqual({ amount: '12.34', currencyCode: 'EUR' });
    expect(unexplained.text).toMatch(/never sent \(another system using the same merchant\)/);
  });

  it('says when reserved at the close is not what this desk has in flight', async () => {
    const other = { ...CLOSING, availableMinor: CLOSING.availableMinor - 700, reservedMinor: CLOSING.reservedMinor + 700 };
    const [eur] = (await buildStatement(journalOf([OPENING, other], november), decimalsOf, NOV, null, LATER)).currencies;
    expect(eur!.reconciled).toBe(true);
    expect(eur!.lines.find((l) => l.kind === 'reservedDiffers')!.text).toContain('Reserved at the closing read is 47.40 EUR; this desk\'s payouts in flight account for 40.40');
  });

  it('opens on the first read when none came before the period, leaving out what it already holds', async () => {
    // First read on 12 November, after p0 (1 Nov) and p1 (10 Nov) were paid and the October payout returned (3 Nov).
    const first = read('2026-11-12T00:00:00Z', 105_050 - 5_050 + 2_000 - 10_100 - 1_010 - 4_040, 4_040);
    const rows = november.filter((p) => p.id !== 'p-between-read-and-start');
    const closing = read('2026-12-01T08:00:00Z', first.availableMinor + 20_000 - 505, 4_040);
    const [eur] = (await buildStatement(journalOf([first, closing], rows), decimalsOf, NOV, null, LATER)).currencies;
    expect(eur!.reconciled).toBe(true);
    expect(eur!.lines.map((l) => [l.kind, l.amount?.amount ?? null])).toEqual([
      ['firstRead', null],
      ['beforePeriod', '131.50'],
      ['afterPeriod', '-5.05'],
      ['closingRead', null],
      ['inFlight', null],
    ]);
    expect(eur!.lines[0]!.text).toContain("the opening is the desk's first read, of 2026-11-12 00:00 UTC");
  });

  it('counts a returned payout the desk never saw paid as paid when it came back, and says so', async () => {
    const rows = [payout('never-seen-paid', 2_500, 'RETURNED', '2026-11-20T10:00:00.000Z', { feeMinor: 25, successRaw: ['not json', JSON.stringify({ process: {} })] })];
    const opening = read('2026-11-01T00:00:00Z', 10_000);
    const closing = read('2026-11-30T00:00:00Z', 10_000 - 25);
    const [eur] = (await buildStatement(journalOf([opening, closing], rows), decimalsOf, NOV, null, LATER)).currencies;
    expect(eur).toMatchObject({ paid: { count: 1 }, returned: { count: 1 }, fees: { amount: '0.25' }, reconciled: true });
    expect(eur!.lines.find((l) => l.kind === 'paidTimeUnknown')!.text).toBe('1 returned payout was never seen paid by this desk: counted as paid when returned.');
  });

  it('closes on the gateway read for a period that ends now, and says why it could not when the read failed', async () => {
    const now = at('2026-11-20T00:00:00Z');
    const opening = read('2026-11-01T00:00:00Z', 10_000);
    const rows = [payout('p', 1_000, 'SUCCESS', '2026-11-10T00:00:00.000Z', { feeMinor: 10 })];
    const fresh = { ...read('2026-11-20T00:00:00Z', 8_990), observedAt: now };
    const [eur] = (await buildStatement(journalOf([opening], rows), decimalsOf, NOV, { snapshots: [fresh] }, now)).currencies;
    expect(eur).toMatchObject({ closing: { source: 'gateway', total: { amount: '89.90' } }, reconciled: true });
    expect(eur!.lines).toEqual([]);

    const offline = await buildStatement(journalOf([opening, read('2026-11-15T00:00:00Z', 8_990)], rows), decimalsOf, NOV, { error: 'the gateway did not answer' }, now);
    expect(offline.currencies[0]!.lines.map((l) => l.text)).toEqual(['The closing balance is the last read before the end, of 2026-11-15 00:00 UTC (the gateway could not be asked: the gateway did not answer).']);
  });

  it('has nothing to start from without any balance read, and never calls that reconciled', async () => {
    const rows = [payout('p', 1_000, 'SUCCESS', '2026-11-10T00:00:00.000Z')];
    const [eur] = (await buildStatement(journalOf([], rows), decimalsOf, NOV, null, LATER)).currencies;
    expect(eur).toMatchObject({ opening: null, closing: null, expectedClosing: null, difference: null, reconciled: false, paid: { count: 1 } });
    expect(eur!.lines.map((l) => l.kind)).toEqual(['noOpening', 'noClosing']);
  });

  it('keeps each currency apart, in its own decimals, with a fee charged in another currency counted there; one currency on request', async () => {
    const rows = [
      { ...payout('k', 1_234, 'SUCCESS', '2026-11-10T00:00:00.000Z', { feeCurrencyCode: 'USD', feeMinor: 7 }), currencyCode: 'KWD' },
      payout('e', 500, 'SUCCESS', '2026-11-11T00:00:00.000Z', { feeMinor: 5 }),
    ];
    const reads = [read('2026-11-01T00:00:00Z', 10_000, 0, 'KWD'), read('2026-11-01T00:00:00Z', 1_000, 0, 'USD'), read('2026-11-01T00:00:00Z', 1_000)];
    const closes = [read('2026-11-30T00:00:00Z', 10_000 - 1_234, 0, 'KWD'), read('2026-11-30T00:00:00Z', 1_000 - 7, 0, 'USD'), read('2026-11-30T00:00:00Z', 1_000 - 505)];
    const view = await buildStatement(journalOf([...reads, ...closes], rows), decimalsOf, NOV, null, LATER);
    expect(view.currencies.map((c) => [c.currencyCode, c.paid.amount.amount, c.fees.amount, c.reconciled])).toEqual([
      ['EUR', '5.00', '0.05', true],
      ['KWD', '1.234', '0.000', true],
      ['USD', '0.00', '0.07', true],
    ]);
    const kwdOnly = await buildStatement(journalOf([...reads, ...closes], rows), decimalsOf, { ...NOV, currencyCode: 'KWD' }, null, LATER);
    expect(kwdOnly.currencies.map((c) => c.currencyCode)).toEqual(['KWD']);
  });
});
