// History query speed: 100,000 journaled payouts (a year of batches, mixed currencies and statuses),
// then the median time of a filtered, sorted page for the queries the History view makes.
// Run: npx tsx bench/history-query.ts [--rows 100000]   Target: median under 30 ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HistoryQuery, type NewPayment } from '../main/journal';
import { openJournal } from '../main/store/sqlite';

const rowsArg = process.argv.indexOf('--rows');
const TOTAL = rowsArg > 0 ? Number(process.argv[rowsArg + 1]) : 100_000;
const BATCH = 1_000;
const YEAR_MS = 365 * 24 * 3_600_000;
const START = Date.UTC(2026, 0, 1);
const CURRENCIES = ['EUR', 'EUR', 'EUR', 'USD', 'USD', 'GBP', 'JPY', 'KWD'];
const FINAL = ['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'FAILED', 'PROCESSING', 'PENDING'];

const dir = mkdtempSync(join(tmpdir(), 'bench-history-'));
let clock = START;
const journal = openJournal(join(dir, 'journal.db'), { now: () => clock, synchronous: 'NORMAL' });

let seed = 12345;
const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);

const seedStarted = performance.now();
for (let b = 0; b < TOTAL / BATCH; b++) {
  clock = START + Math.floor((b / (TOTAL / BATCH)) * YEAR_MS);
  const rows: NewPayment[] = [];
  for (let i = 0; i < BATCH; i++) {
    const n = b * BATCH + i;
    rows.push({
      id: `p-${n.toString(36)}-${Math.floor(rand() * 1e9).toString(36)}`,
      amountMinor: 100 + Math.floor(rand() * 5_000_000),
      currencyCode: CURRENCIES[n % CURRENCIES.length]!,
      accountName: `Beneficiary ${n % 20_000}`,
      accountNumber: `DE89${String(n).padStart(18, '0')}`,
      paymentOperatorCode: 'EU_SEPA',
      paymentMethodCode: 'BANK_TRANSFER',
      emailAddress: `person${n % 20_000}@example.com`,
      reference: `INV-${n}`,
    });
  }
  const batch = journal.createBatch({ id: `batch-${b}`, fileName: `batch-${b}.csv`, sha256: `sha-${b}`, rows });
  journal.db.transaction(() => {
    for (const row of rows) {
      clock += 50;
      journal.markSending('payout', row.id);
      const status = FINAL[Math.floor(rand() * FINAL.length)]!;
      journal.recordObservation('payout', row.id, { status, source: 'poll', isFinal: status === 'SUCCESS' || status === 'FAILED', nextPollAt: clock + 10_000 });
    }
  })();
  void batch;
}
journal.db.exec('ANALYZE');
const seedSecs = (performance.now() - seedStarted) / 1000;

const QUERIES: [string, (i: number) => HistoryQuery][] = [
  ['status SUCCESS + EUR + one quarter, newest first', (i) => ({ statuses: ['SUCCESS'], currencyCode: 'EUR', from: START + 90 * 86_400_000, to: START + 180 * 86_400_000, sortBy: 'createdAt', sortDir: 'desc', page: i % 5, pageSize: 50 })],
  ['status FAILED, largest amount first', (i) => ({ statuses: ['FAILED'], sortBy: 'amountMinor', sortDir: 'desc', page: i % 5, pageSize: 50 })],
  ['one batch, by amount', (i) => ({ batchId: `batch-${(i * 7) % (TOTAL / BATCH)}`, sortBy: 'amountMinor', sortDir: 'asc', pageSize: 50 })],
  ['free text "Beneficiary 1234"', (i) => ({ text: `Beneficiary ${1234 + i}`, sortBy: 'createdAt', sortDir: 'desc', pageSize: 50 })],
  ['USD + pending statuses, newest first', (i) => ({ currencyCode: 'USD', statuses: ['PENDING', 'PROCESSING'], sortBy: 'createdAt', sortDir: 'desc', page: i % 3, pageSize: 50 })],
  ['everything, newest first, page 20', () => ({ sortBy: 'createdAt', sortDir: 'desc', page: 20, pageSize: 50 })],
];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;

console.log(`history-query bench: ${TOTAL.toLocaleString('en')} payouts journaled in ${seedSecs.toFixed(1)} s (page of 50 rows + total count)`);
const all: number[] = [];
for (const [name, make] of QUERIES) {
  const times: number[] = [];
  let total = 0;
  for (let i = 0; i < 41; i++) {
    const started = performance.now();
    const page = journal.history(make(i));
    times.push(performance.now() - started);
    total = page.total;
  }
  all.push(...times.slice(1));
  console.log(`  ${name.padEnd(52)} median ${median(times).toFixed(2)} ms  p95 ${p95(times).toFixed(2)} ms  (${total.toLocaleString('en')} matches)`);
}
console.log(`  overall median ${median(all).toFixed(2)} ms over ${all.length} queries (target < 30 ms)`);
journal.close();
rmSync(dir, { recursive: true, force: true });
