// The SQLite journal's history planner (main/store/sqlite/history-plan.ts) must give exactly the page and total
// of the plain query (main/store/history.ts queryHistory), whichever way it takes. Its limits are made small
// here so that 1,200 rows take every way: few and many text matches, narrow and broad filters, chunked walks
// whose pk ranges are tight and wide, a gathered text and one asked row by row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryQuery } from '../../../main/journal';
import { iterateHistory, queryHistory } from '../../../main/store/history';
import { HISTORY_PLAN_LIMITS, iterateHistoryPlanned, queryHistoryPlanned, type HistoryPlanLimits } from '../../../main/store/sqlite/history-plan';
import { tempJournal, type TempJournal } from './helpers';

const ROWS = 1_200;
const SMALL: HistoryPlanLimits = { narrowText: 25, narrowFilter: 30, broadFilter: 40, firstChunk: 3, maxChunk: 16, rangePerRow: 25 };

let t: TempJournal;
beforeAll(() => {
  t = tempJournal();
  t.journal.db.exec(`INSERT INTO batches (id, file_name, sha256, row_count, totals_json, state, created_at, updated_at)
    VALUES ('b-1', 'b1.csv', 's1', 100, '[]', 'COMPLETED', 0, 0), ('b-2', 'b2.csv', 's2', 100, '[]', 'COMPLETED', 0, 0)`);
  // Every 20th payee's name has letters past ASCII, one the Kelvin sign (U+212A), which the trigram index folds
  // to "k" and LIKE does not: a search must find what the index finds, row by row too. Every 20th reference from
  // the 10th says "Kelvin" in ASCII, which a search typed with the Kelvin sign finds through the index. "Tax_2026"
  // and "Tax-2026": an underscore searched is a character, not LIKE's wildcard.
  // Creation times repeat in runs of 7 and, for every 13th row, run against pk order: walks in creation order
  // meet ties and chunks whose pk range spans most of the table.
  t.journal.db.exec(`INSERT INTO payments (kind, id, batch_id, row_number, amount_minor, currency_code, account_name, account_number,
      payment_operator_code, payment_method_code, email_address, reference, state, gateway_status, status, is_final, attempts,
      created_at, updated_at)
    WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < ${ROWS - 1})
    SELECT CASE WHEN n % 17 = 0 THEN 'payin' ELSE 'payout' END, 'p-' || n,
      CASE n % 10 WHEN 0 THEN 'b-1' WHEN 1 THEN 'b-2' END, n, 100 + (n * 7919) % 5003,
      CASE n % 4 WHEN 0 THEN 'EUR' WHEN 1 THEN 'USD' WHEN 2 THEN 'GBP' ELSE 'EUR' END,
      CASE WHEN n % 20 = 0 THEN 'Jürgen Ärmel ' || n || ' ' || char(8490) || 'elvin' ELSE 'Beneficiary ' || (n % 40) END, 'DE89' || printf('%018d', n), 'EU_SEPA', 'BANK_TRANSFER',
      'person' || (n % 150) || '@example.com', CASE WHEN n % 3 = 0 THEN 'INV-' || n WHEN n % 20 = 10 THEN 'Kelvin Ltd ' || n
        WHEN n % 20 = 5 THEN 'Tax_2026 ' || n WHEN n % 20 = 15 THEN 'Tax-2026 ' || n END, 'ACCEPTED',
      CASE n % 5 WHEN 0 THEN 'FAILED' WHEN 1 THEN 'PENDING' ELSE 'SUCCESS' END,
      CASE n % 5 WHEN 0 THEN 'FAILED' WHEN 1 THEN 'PENDING' ELSE 'SUCCESS' END, n % 5 <> 1, 1,
      CASE WHEN n % 13 = 0 THEN 1000000 - n * 500 ELSE 1000 + (n / 7) * 500 END, 2000000 - n * 3
    FROM s`);
});
afterAll(() => t?.dispose());

const texts = [undefined, 'example', 'person1', 'person12', 'Beneficiary 7', 'INV-11', 'p-1', 'DE89', 'nothing here', 'ab', 'a"b', 'ÄÖÜ', 'ärmel', 'ÜRGEN', 'kelvin', 'KELVIN', '\u212Aelvin', 'ürgen är', 'x_2'];
const filters: HistoryQuery[] = [
  {},
  { statuses: ['FAILED'] },
  { statuses: ['failed', 'pending'] },
  { currencyCode: 'USD' },
  { currencyCodes: ['GBP', 'USD'], kind: 'payout' },
  { batchId: 'b-2' },
  { from: 50_000, to: 200_000 },
  { statuses: ['SUCCESS'], currencyCode: 'EUR', from: 1_000, to: 300_000 },
  { kinds: ['payin'] },
  { kinds: ['payin'], statuses: ['FAILED'] },
];
const orders: HistoryQuery[] = [
  {},
  { sortDir: 'asc' },
  { sortBy: 'amountMinor' },
  { sortBy: 'amountMinor', sortDir: 'asc' },
  { sortBy: 'status', sortDir: 'asc' },
  { sortBy: 'status' },
  { sortBy: 'updatedAt' },
  { sortBy: 'id', sortDir: 'asc' },
];

function queries(): HistoryQuery[] {
  const out: HistoryQuery[] = [];
  let k = 0;
  for (const text of texts) {
    for (const filter of filters) {
      for (const order of orders) {
        k++;
        // Pages and count limits vary across the grid so each combination meets several.
        out.push({ ...filter, ...order, text, pageSize: 7, page: k % 4, countLimit: [undefined, 5, 60, 30][k % 4] });
      }
    }
  }
  return out;
}

describe('history planner on SQLite', () => {
  // Each of these two compares some thousand queries: seconds on a loaded machine.
  it('gives the plain query page and total for every text, filter, order, page and count limit, with limits that force each way', { timeout: 60_000 }, () => {
    const db = t.journal.db;
    let compared = 0;
    for (const q of queries()) {
      const want = queryHistory(db, q);
      // A chunk walked in order asks the index for its range, or each of its rows: every query both ways.
      for (const rangePerRow of [0, 1e9]) expect(queryHistoryPlanned(db, q, { ...SMALL, rangePerRow }), JSON.stringify(q)).toEqual(want);
      compared++;
    }
    expect(compared).toBe(texts.length * filters.length * orders.length);
  });

  it('counts a text and a filter that both match many rows alike by either walk', { timeout: 60_000 }, () => {
    const db = t.journal.db;
    for (const countBy of ['text', 'filter'] as const) {
      for (const text of texts) {
        for (const filter of filters) {
          for (const countLimit of [undefined, 30]) {
            const q: HistoryQuery = { ...filter, text, countLimit };
            expect(queryHistoryPlanned(db, q, { ...SMALL, countBy }).total, `${countBy} ${JSON.stringify(q)}`).toBe(queryHistory(db, q).total);
          }
        }
      }
    }
  });

  it('gives the plain query result with the limits the app uses', () => {
    const db = t.journal.db;
    for (const q of queries()) expect(queryHistoryPlanned(db, q, HISTORY_PLAN_LIMITS), JSON.stringify(q)).toEqual(queryHistory(db, q));
  });

  it('streams every row an export asks for, as the plain walk does, in creation order', () => {
    const db = t.journal.db;
    for (const text of texts) {
      for (const filter of filters) {
        const f = { ...filter, text };
        expect([...iterateHistoryPlanned(db, f, SMALL)], JSON.stringify(f)).toEqual([...iterateHistory(db, f)]);
      }
    }
  });

  it('reaches the last page of a broad text in creation order and says no more match there', () => {
    const db = t.journal.db;
    const total = queryHistory(db, { text: 'example' }).total;
    expect(total).toBe(ROWS);
    const last = queryHistoryPlanned(db, { text: 'example', pageSize: 50, page: Math.floor((ROWS - 1) / 50) }, SMALL);
    expect(last.rows.length).toBe(ROWS % 50 || 50);
    expect(queryHistoryPlanned(db, { text: 'example', pageSize: 50, page: ROWS / 50 + 1 }, SMALL).rows).toEqual([]);
    expect(last.total).toBe(ROWS);
  });

  it('answers through the journal', () => {
    const page = t.journal.history({ text: 'person12', statuses: ['FAILED'], pageSize: 5 });
    expect(page).toEqual(queryHistory(t.journal.db, { text: 'person12', statuses: ['FAILED'], pageSize: 5 }));
    expect(page.rows.length).toBe(5);
    expect(page.rows.every((r) => r.status === 'FAILED' && /person12/.test(r.emailAddress ?? ''))).toBe(true);
  });
});
