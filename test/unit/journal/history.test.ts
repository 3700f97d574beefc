import { afterEach, describe, expect, it } from 'vitest';
import { payout, tempJournal, type TempJournal } from './helpers';

let t: TempJournal;
afterEach(() => t?.dispose());

function seed(): void {
  let clock = 1_000;
  t = tempJournal({ now: () => clock });
  const j = t.journal;
  const rows: [string, number, string, string, string][] = [
    ['h1', 500, 'EUR', 'Ada Lovelace', 'ada@example.com'],
    ['h2', 1500, 'USD', 'Grace Hopper', 'grace@navy.example'],
    ['h3', 250, 'EUR', 'Alan Turing', 'alan@bletchley.example'],
    ['h4', 9000, 'JPY', 'Ada Byron', 'byron@example.com'],
    ['h5', 700, 'EUR', 'Grace 100% Sure', 'sure@example.com'],
  ];
  for (const [id, amountMinor, currencyCode, accountName, emailAddress] of rows) {
    clock += 1_000;
    j.insertPayment('payout', payout(id, { amountMinor, currencyCode, accountName, emailAddress }));
  }
  clock += 1_000;
  j.markSending('payout', 'h2');
  j.recordObservation('payout', 'h2', { status: 'SUCCESS', source: 'poll', isFinal: true });
  j.markSending('payout', 'h3');
  j.recordObservation('payout', 'h3', { status: 'PROCESSING', source: 'poll', isFinal: false });
  j.insertPayment('payin', payout('in-1', { amountMinor: 4200, accountName: 'Customer One' }));
}

describe('history queries', () => {
  it('filters by status, currency, kind and date range, sorted and paged', () => {
    seed();
    const j = t.journal;
    expect(j.history({ statuses: ['queued'], currencyCode: 'eur', kind: 'payout' }).rows.map((r) => r.id)).toEqual(['h5', 'h1']);
    expect(j.history({ from: 3_000, to: 5_000, sortBy: 'createdAt', sortDir: 'asc' }).rows.map((r) => r.id)).toEqual(['h2', 'h3']);
    const page = j.history({ kind: 'payout', sortBy: 'amountMinor', sortDir: 'desc', pageSize: 2, page: 1 });
    expect(page).toMatchObject({ total: 5, page: 1, pageSize: 2 });
    expect(page.rows.map((r) => r.id)).toEqual(['h5', 'h1']);
    expect(j.history({ kind: 'payin' }).rows.map((r) => r.id)).toEqual(['in-1']);
  });

  it('finds free text anywhere in id, name, account or e-mail, case-insensitively', () => {
    seed();
    const j = t.journal;
    expect(j.history({ text: 'grace' }).rows.map((r) => r.id).sort()).toEqual(['h2', 'h5']);
    expect(j.history({ text: 'BLETCHLEY' }).rows.map((r) => r.id)).toEqual(['h3']);
    expect(j.history({ text: 'h4' }).rows.map((r) => r.id)).toEqual(['h4']); // short text: LIKE path
    expect(j.history({ text: '100%' }).rows.map((r) => r.id)).toEqual(['h5']);
    expect(j.history({ text: '%' }).rows.map((r) => r.id)).toEqual(['h5']); // % is literal, not a wildcard
    expect(j.history({ text: 'a"b' }).total).toBe(0); // quotes cannot break the search syntax
  });

  it('filters by batch together with free text and a date range, sorted and paged', () => {
    let clock = 1_000;
    t = tempJournal({ now: () => clock });
    const j = t.journal;
    j.insertPayment('payout', payout('s1', { amountMinor: 300, accountName: 'Grace Single' }));
    clock = 2_000;
    j.createBatch({
      id: 'b-june', fileName: 'june.csv', sha256: 'june',
      rows: [
        payout('j1', { amountMinor: 500, accountName: 'Grace Hopper' }),
        payout('j2', { amountMinor: 1_500, accountName: 'Ada Lovelace' }),
        payout('j3', { amountMinor: 250, accountName: 'Grace Kelly' }),
        payout('j4', { amountMinor: 9_000, currencyCode: 'USD', accountName: 'Grace Jones' }),
        payout('j5', { amountMinor: 700, accountName: 'Alan Turing' }),
      ],
    });
    clock = 3_000;
    j.createBatch({
      id: 'b-july', fileName: 'july.csv', sha256: 'july',
      rows: [payout('k1', { amountMinor: 800, accountName: 'Grace Hopper' }), payout('k2', { amountMinor: 100, accountName: 'Grace Murray' })],
    });
    clock = 6_000; // a row of the June batch stored later
    j.insertPayment('payout', payout('j6', { amountMinor: 1_200, accountName: 'Grace Late', batchId: 'b-june', rowNumber: 6 }));
    const ids = (q: Parameters<typeof j.history>[0]) => j.history(q).rows.map((r) => r.id);

    expect(j.history({ batchId: 'b-june' }).total).toBe(6);
    expect(ids({ batchId: 'b-june', text: 'grace', sortBy: 'id', sortDir: 'asc' })).toEqual(['j1', 'j3', 'j4', 'j6']);
    // Batch + text + date range, sorted by amount and paged two at a time.
    const june = { batchId: 'b-june', text: 'grace', from: 2_000, to: 6_000, sortBy: 'amountMinor', pageSize: 2 } as const;
    const first = j.history({ ...june, sortDir: 'asc', page: 0 });
    expect(first).toMatchObject({ total: 3, page: 0, pageSize: 2 });
    expect(first.rows.map((r) => r.id)).toEqual(['j3', 'j1']);
    const second = j.history({ ...june, sortDir: 'asc', page: 1 });
    expect(second).toMatchObject({ total: 3, page: 1 });
    expect(second.rows.map((r) => r.id)).toEqual(['j4']);
    expect(ids({ ...june, sortDir: 'desc', page: 0 })).toEqual(['j4', 'j1']);
    expect(ids({ ...june, page: 2 })).toEqual([]);
    // The range's ends: `from` is inclusive, `to` exclusive.
    expect(ids({ batchId: 'b-june', text: 'grace', from: 6_000 })).toEqual(['j6']);
    expect(ids({ batchId: 'b-june', text: 'grace', to: 2_000 })).toEqual([]);
    // The other batch's matching rows and the single payout never leak in, and vice versa.
    expect(ids({ batchId: 'b-july', text: 'grace', from: 2_000, to: 6_000, sortBy: 'amountMinor', sortDir: 'asc' })).toEqual(['k2', 'k1']);
    expect(ids({ batchId: 'b-july', text: 'single' })).toEqual([]);
    // Short text (the LIKE path) and a currency narrow inside the batch as well.
    expect(ids({ batchId: 'b-june', text: 'ke' })).toEqual(['j3']);
    expect(ids({ batchId: 'b-june', text: 'grace', currencyCode: 'usd' })).toEqual(['j4']);
    expect(ids({ batchId: 'no-such-batch', text: 'grace' })).toEqual([]);
    // Exports use the same filter, in creation order.
    expect([...j.iterateHistory({ batchId: 'b-june', text: 'grace', from: 2_000, to: 6_000 })].map((r) => r.id)).toEqual(['j1', 'j3', 'j4']);
  });

  it('totals pending outgoing payouts per currency, leaving out final and incoming ones', () => {
    seed();
    expect(t.journal.pendingPayoutTotals()).toEqual([
      { currencyCode: 'EUR', amountMinor: 1_450, count: 3 },
      { currencyCode: 'JPY', amountMinor: 9_000, count: 1 },
    ]);
  });

  it('streams every matching row for export in creation order', () => {
    seed();
    expect([...t.journal.iterateHistory({ currencyCode: 'EUR' })].map((r) => r.id)).toEqual(['h1', 'h3', 'h5', 'in-1']);
  });
});
