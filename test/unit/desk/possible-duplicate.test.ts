// Possible duplicates as a single payout and an approver meet them (main/desk/possible-duplicate.ts), on a real
// SQLite journal: same account, amount and currency in the window, paid or still on its way; never the payout
// itself nor the rows of its own batch; nothing once the window is 0.
import { afterEach, describe, expect, it } from 'vitest';
import { possibleDuplicateOf, possibleDuplicatesOfRows } from '../../../main/desk/possible-duplicate';
import { openJournal, type Journal } from '../../../main/store/sqlite';
import { payout } from '../journal/helpers';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 27, 12);
const decimalsOf = (code: string) => (code === 'KWD' ? 3 : 2);
const ACCOUNT = 'DE89370400440532013000';

const open: Journal[] = [];
afterEach(() => {
  for (const j of open.splice(0)) j.close();
});

/** A journal whose payouts were entered at the given times; `sent` are accepted with the given final status. */
async function journalWith(rows: { id: string; at: number; amountMinor?: number; currencyCode?: string; status?: string; batch?: string }[]): Promise<Journal> {
  let t = NOW;
  const j = openJournal(':memory:', { now: () => t });
  open.push(j);
  for (const r of rows) {
    t = r.at;
    const p = payout(r.id, { accountNumber: ACCOUNT, amountMinor: r.amountMinor ?? 10_000, currencyCode: r.currencyCode ?? 'EUR' });
    if (r.batch) await j.createBatch({ id: r.batch, fileName: `${r.batch}.csv`, sha256: r.batch, rows: [p] });
    else await j.insertPayment('payout', p);
    if (r.status) {
      const claim = await j.claimSend('payout', r.id);
      expect(claim?.confirm()).toBe(true);
      await j.recordObservationSoon('payout', r.id, { status: r.status, source: 'create', isFinal: r.status !== 'PROCESSING' });
      await claim!.release();
    }
  }
  t = NOW;
  return j;
}

describe('a single payout like an earlier one', () => {
  const draft = { idPayout: 'new-1', accountNumber: ACCOUNT, amountMinor: 10_000, currencyCode: 'EUR' };

  it('names the earliest earlier payout that paid or may still pay, with its date and the masked account', async () => {
    const j = await journalWith([
      { id: 'failed', at: NOW - 20 * DAY, status: 'FAILED' },
      { id: 'paid', at: NOW - 10 * DAY, status: 'SUCCESS' },
      { id: 'moving', at: NOW - 2 * DAY, status: 'PROCESSING' },
    ]);
    expect(await possibleDuplicateOf(j, draft, 30, decimalsOf, NOW)).toEqual({
      idPayout: 'paid',
      createdAt: new Date(NOW - 10 * DAY).toISOString(),
      fileName: null,
      message: 'possible duplicate of payout paid of 2026-11-17: 100.00 EUR to the same account …3000; paying it again pays twice, so confirm only if this is a separate payment',
    });
  });

  it('looks only as far back as the window, never at the payout itself, and not at all at 0 days', async () => {
    const j = await journalWith([{ id: 'old', at: NOW - 31 * DAY, status: 'SUCCESS' }, { id: 'new-1', at: NOW - DAY }]);
    expect(await possibleDuplicateOf(j, draft, 30, decimalsOf, NOW)).toBeNull();
    expect((await possibleDuplicateOf(j, draft, 40, decimalsOf, NOW))?.idPayout).toBe('old');
    expect(await possibleDuplicateOf(j, draft, 0, decimalsOf, NOW)).toBeNull();
    // Another amount or currency is another payment.
    expect(await possibleDuplicateOf(j, { ...draft, amountMinor: 10_001 }, 40, decimalsOf, NOW)).toBeNull();
    expect(await possibleDuplicateOf(j, { ...draft, currencyCode: 'USD' }, 40, decimalsOf, NOW)).toBeNull();
  });
});

describe('rows an approver is shown', () => {
  it('marks the rows like a payout outside the subject, leaving out its own rows and its batch', async () => {
    const j = await journalWith([
      { id: 'last-week', at: NOW - 7 * DAY, status: 'SUCCESS', batch: 'B0' },
      { id: 'kwd-paid', at: NOW - 3 * DAY, amountMinor: 1_234, currencyCode: 'KWD', status: 'SUCCESS' },
      { id: 'row-1', at: NOW - 60_000, batch: 'B1' },
    ]);
    const rows = [
      { id: 'row-1', amount: '100.00', currency: 'EUR', account: ACCOUNT },
      { id: 'row-2', amount: '100.01', currency: 'EUR', account: ACCOUNT },
      { id: 'row-3', amount: '1.234', currency: 'KWD', account: ACCOUNT },
    ];
    const marks = await possibleDuplicatesOfRows(j, rows, 'B1', 30, NOW);
    expect([...marks.keys()]).toEqual(['row-1', 'row-3']);
    expect(marks.get('row-1')).toBe('possible duplicate of payout last-week of 2026-11-20 (file B0.csv): 100.00 EUR to the same account …3000');
    expect(marks.get('row-3')).toContain('possible duplicate of payout kwd-paid of 2026-11-24: 1.234 KWD');
    // Its own batch is not a duplicate of itself: without the earlier batch, nothing is marked.
    const alone = await journalWith([{ id: 'row-1', at: NOW - 60_000, batch: 'B1' }]);
    expect((await possibleDuplicatesOfRows(alone, rows.slice(0, 1), 'B1', 30, NOW)).size).toBe(0);
    expect((await possibleDuplicatesOfRows(j, rows, 'B1', 0, NOW)).size).toBe(0);
  });

  it('names for every row sharing a key the earliest of many earlier payouts, never a row of the subject', async () => {
    const j = await journalWith([
      { id: 'itself', at: NOW - 25 * DAY },
      ...Array.from({ length: 40 }, (_, i) => ({ id: `earlier-${i}`, at: NOW - (20 - i / 4) * DAY, status: i % 2 === 0 ? 'SUCCESS' : undefined })),
      { id: 'row-a', at: NOW - 60_000, batch: 'B1' },
    ]);
    const row = { id: 'row-a', amount: '100.00', currency: 'EUR', account: ACCOUNT };
    const marks = await possibleDuplicatesOfRows(j, [row, { ...row, id: 'row-b' }, { ...row, id: 'itself' }], 'B1', 30, NOW);
    expect([...marks.keys()]).toEqual(['row-a', 'row-b', 'itself']);
    expect(new Set(marks.values())).toEqual(new Set(['possible duplicate of payout earlier-0 of 2026-11-07: 100.00 EUR to the same account …3000']));
    // A single payout waiting (no batch): the earliest like payout is itself, so the next one is named.
    expect((await possibleDuplicatesOfRows(j, [{ ...row, id: 'itself' }], null, 30, NOW)).get('itself')).toContain('payout earlier-0 of');
    expect((await possibleDuplicatesOfRows(j, [{ ...row, id: 'earlier-0' }], null, 30, NOW)).get('earlier-0')).toContain('payout itself of');
  });
});
