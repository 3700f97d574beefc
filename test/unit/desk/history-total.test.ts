// The History screen's total over a long history: counted only some way past the page asked (so a broad filter
// over a million payouts answers at once), said to be capped, and growing as deeper pages are read, so every
// row can still be scrolled to.
import { afterEach, expect, it } from 'vitest';
import { HISTORY_COUNT_AHEAD, HISTORY_SEARCH_COUNT_AHEAD, historyService } from '../../../main/desk/history';
import type { CurrencyCache } from '../../../main/desk/currency-cache';
import type { DeskRuntime } from '../../../main/desk/runtime';
import type { Profile } from '../../../main/profiles/profile-schema';
import { payout, tempJournal, type TempJournal } from '../journal/helpers';

let t: TempJournal | undefined;
afterEach(() => t?.dispose());

function serviceOver(rows: number) {
  t = tempJournal();
  t.journal.createBatch({ fileName: 'long.csv', sha256: 'h', rows: Array.from({ length: rows }, (_, i) => payout(`long-${i}`, { accountName: `Payee ${i}` })) });
  const journal = t.journal;
  const rt = { journalFor: () => Promise.resolve(journal) } as unknown as DeskRuntime;
  const currencies = { decimalsOf: () => () => 2 } as unknown as CurrencyCache;
  return { history: historyService(rt, currencies), profile: { id: 'p' } as Profile };
}

it('counts up to its limit past the page, says so, and counts further on a deeper page, to the exact end', async () => {
  const rows = HISTORY_COUNT_AHEAD + 250;
  const { history, profile } = serviceOver(rows);
  const first = await history.query(profile, { offset: 0, limit: 100 });
  expect(first).toMatchObject({ total: HISTORY_COUNT_AHEAD + 100, totalCapped: true, offset: 0, limit: 100 });
  expect(first.items.map((r) => r.id)).toEqual(Array.from({ length: 100 }, (_, i) => `long-${rows - 1 - i}`));
  // Scrolled to the end of what the first answer counted: this page counts to the last row, exactly.
  const deep = await history.query(profile, { offset: HISTORY_COUNT_AHEAD, limit: 100 });
  expect(deep.total).toBe(rows);
  expect(deep.totalCapped).toBeUndefined();
  expect(deep.items.map((r) => r.id)).toEqual(Array.from({ length: 100 }, (_, i) => `long-${249 - i}`));
  // A narrow filter is counted exactly.
  const narrow = await history.query(profile, { offset: 0, limit: 100, filters: { search: `long-${rows - 1}` } });
  expect(narrow.total).toBe(1);
  expect(narrow.totalCapped).toBeUndefined();
});

it('counts a search a shorter way past the page than a filter, and further on a deeper page', async () => {
  const rows = HISTORY_SEARCH_COUNT_AHEAD + 450;
  const { history, profile } = serviceOver(rows);
  const first = await history.query(profile, { offset: 0, limit: 100, filters: { search: 'Payee' } });
  expect(first).toMatchObject({ total: HISTORY_SEARCH_COUNT_AHEAD + 100, totalCapped: true });
  expect(first.items.map((r) => r.id)).toEqual(Array.from({ length: 100 }, (_, i) => `long-${rows - 1 - i}`));
  // The same rows under a filter alone are counted to the end (fewer than HISTORY_COUNT_AHEAD past the page).
  const filtered = await history.query(profile, { offset: 0, limit: 100, filters: { kinds: ['payout'] } });
  expect(filtered.total).toBe(rows);
  expect(filtered.totalCapped).toBeUndefined();
  const deep = await history.query(profile, { offset: 500, limit: 100, filters: { search: 'Payee' } });
  expect(deep.total).toBe(rows);
  expect(deep.totalCapped).toBeUndefined();
});
