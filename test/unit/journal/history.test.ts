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
