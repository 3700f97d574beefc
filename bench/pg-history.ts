// History query speed on the team database (issue "Team desk": < 50 ms per filtered page over 1,000,000
// payouts on PostgreSQL). A throwaway cluster (the test harness's), 1,000,000 payouts written by one
// INSERT … SELECT generate_series (1,000 batches over a year, mixed currencies and statuses, as
// bench/history-query.ts journals them), indexes built after the load, VACUUM ANALYZE; then, per query,
// the median and p95 of queryHistoryPg as the History screen asks it (a page of HISTORY_PAGE_SIZE + a total counted up to
// HISTORY_COUNT_AHEAD rows past the page or a search's HISTORY_SEARCH_COUNT_AHEAD, main/desk/history.ts), of it with an exact total, and of its two
// statements alone (page; exact COUNT). Unless --no-sqlite, the same rows are written into a SQLite journal
// and queryHistory is timed as the screen asks it too. The overall p95 and the kinds over the target count
// only the sorts and filters the screen offers (its table sorts by created, amount or status); the others
// are printed, marked, for what the contract allows beyond the screen (and searches under 3 characters,
// which the screen does not ask: contract/limits.ts MIN_HISTORY_SEARCH).
// Run: npx tsx bench/pg-history.ts [--rows 1000000] [--runs 31] [--no-sqlite] [--sort-indexes]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type HistoryQuery } from '../main/journal';
import { openJournal } from '../main/store/sqlite';
import { historyPaging } from '../main/store/history';
import { pgHistoryWhere, queryHistoryPg } from '../main/store/postgres/history';
import { migratePg } from '../main/store/postgres/migrations';
import { HISTORY_COUNT_AHEAD, HISTORY_SEARCH_COUNT_AHEAD, screenCountLimit } from '../main/desk/history';
import { HISTORY_PAGE_SIZE } from '../contract/limits';
import { startCluster } from '../test/integration/postgres/cluster';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const TOTAL = arg('--rows', 1_000_000);
const RUNS = arg('--runs', 31);
const WITH_SQLITE = !process.argv.includes('--no-sqlite');
/** Also index the sort keys no screen offers with pk (not in the schema; PostgreSQL migration 18 indexes amount and status). */
const SORT_INDEXES = process.argv.includes('--sort-indexes');
const TARGET_MS = 50;
const PER_BATCH = 1_000;
if (!(TOTAL >= PER_BATCH && TOTAL % PER_BATCH === 0 && RUNS > 1)) throw new Error('--rows must be a multiple of 1000, --runs > 1');
const BATCHES = TOTAL / PER_BATCH;
const START = Date.UTC(2026, 0, 1);
const YEAR_MS = 365 * 24 * 3_600_000;
const DAY = 86_400_000;

// One row per n in [0, TOTAL): the same integer formulas in both SQL dialects (|| and CASE are common;
// int8 arithmetic stays below 2^63). Statuses: 6/9 SUCCESS, FAILED, PROCESSING, PENDING.
const h1 = '((n * 2654435761) % 4294967291)';
const h2 = '((n * 40503 + 12345) % 1000003)';
const STATUS = `(CASE ${h2} % 9 WHEN 6 THEN 'FAILED' WHEN 7 THEN 'PROCESSING' WHEN 8 THEN 'PENDING' ELSE 'SUCCESS' END)`;
const FINAL = `(${h2} % 9 < 7)`;
const CURRENCY = `(CASE n % 8 WHEN 3 THEN 'USD' WHEN 4 THEN 'USD' WHEN 5 THEN 'GBP' WHEN 6 THEN 'JPY' WHEN 7 THEN 'KWD' ELSE 'EUR' END)`;
const CREATED = `(${START} + (n / ${PER_BATCH}) * ${Math.floor(YEAR_MS / BATCHES)})`;
const UPDATED = `(${CREATED} + (n % ${PER_BATCH} + 1) * 50)`;
const COLUMNS = `kind, id, batch_id, row_number, amount_minor, currency_code, account_name, account_number, payment_operator_code,
  payment_method_code, email_address, reference, state, gateway_status, status, is_final, attempts, created_at, updated_at,
  accepted_at, final_at, next_poll_at`;
const values = (dialect: 'pg' | 'sqlite') => {
  const int = (sql: string) => (dialect === 'pg' ? `(${sql})::bigint` : `(${sql})`);
  const bool = (sql: string) => (dialect === 'pg' ? sql : `(CASE WHEN ${sql} THEN 1 ELSE 0 END)`);
  const text = (sql: string) => (dialect === 'pg' ? `(${sql})::text` : `CAST(${sql} AS TEXT)`);
  return `'payout', 'p-' || ${text('n')}, 'batch-' || ${text(`n / ${PER_BATCH}`)}, ${int(`n % ${PER_BATCH} + 1`)}, ${int(`100 + ${h1} % 5000000`)},
    ${CURRENCY}, 'Beneficiary ' || ${text('n % 20000')}, 'DE89' || ${dialect === 'pg' ? `lpad(n::text, 18, '0')` : `printf('%018d', n)`},
    'EU_SEPA', 'BANK_TRANSFER', 'person' || ${text('n % 20000')} || '@example.com', 'INV-' || ${text('n')}, 'ACCEPTED', ${STATUS}, ${STATUS},
    ${bool(FINAL)}, 1, ${int(CREATED)}, ${int(UPDATED)}, ${int(UPDATED)}, CASE WHEN ${FINAL} THEN ${int(UPDATED)} END,
    CASE WHEN ${FINAL} THEN NULL ELSE ${int(`${UPDATED} + 10000`)} END`;
};

/** A sort or filter no screen offers (the contract allows it): printed, left out of the overall figures. */
const OFF_SCREEN = true;
const QUERIES: [string, (i: number) => HistoryQuery, typeof OFF_SCREEN?][] = [
  ['status SUCCESS, newest first, page 1', () => ({ statuses: ['SUCCESS'] })],
  ['status FAILED, newest first, page 1', () => ({ statuses: ['FAILED'] })],
  ['status FAILED, newest first, page 200', () => ({ statuses: ['FAILED'], page: 200 })],
  ['status FAILED, largest amount first, page 1', () => ({ statuses: ['FAILED'], sortBy: 'amountMinor' })],
  ['currency USD, newest first, page 1', () => ({ currencyCode: 'USD' })],
  ['currency USD, newest first, page 500', () => ({ currencyCode: 'USD', page: 500 })],
  ['one quarter, newest first, page 1', () => ({ from: START + 90 * DAY, to: START + 181 * DAY })],
  ['one quarter, oldest first, page 1000', () => ({ from: START + 90 * DAY, to: START + 181 * DAY, sortDir: 'asc', page: 1000 })],
  ['SUCCESS + EUR + one quarter, page 0-4', (i) => ({ statuses: ['SUCCESS'], currencyCode: 'EUR', from: START + 90 * DAY, to: START + 181 * DAY, page: i % 5 })],
  ['USD + PENDING/PROCESSING, page 0-2', (i) => ({ currencyCode: 'USD', statuses: ['PENDING', 'PROCESSING'], page: i % 3 })],
  ['everything, by status, page 1', () => ({ sortBy: 'status', sortDir: 'asc' })],
  ['everything, by status desc, page 3', () => ({ sortBy: 'status', sortDir: 'desc', page: 3 })],
  ['currency USD, largest amount first, page 1', () => ({ currencyCode: 'USD', sortBy: 'amountMinor' })],
  ['one quarter, smallest amount first, page 1', () => ({ from: START + 90 * DAY, to: START + 181 * DAY, sortBy: 'amountMinor', sortDir: 'asc' })],
  ['currency USD, by last update, page 1', () => ({ currencyCode: 'USD', sortBy: 'updatedAt' }), OFF_SCREEN],
  ['one quarter, by id, page 1', () => ({ from: START + 90 * DAY, to: START + 181 * DAY, sortBy: 'id', sortDir: 'asc' }), OFF_SCREEN],
  ['one batch, by amount', (i) => ({ batchId: `batch-${(i * 7) % BATCHES}`, sortBy: 'amountMinor', sortDir: 'asc' })],
  ['text "Beneficiary 1234" (>= 3 chars)', (i) => ({ text: `Beneficiary ${1234 + (i % 7)}` })],
  ['text "INV-4242" (>= 3 chars, few rows)', (i) => ({ text: `INV-${4242 + i}` })],
  ['text "person1" (>= 3 chars, 56% of rows)', () => ({ text: 'person1' })],
  ['text "example" (>= 3 chars, every row)', () => ({ text: 'example' })],
  ['text "person12" (>= 3 chars, 6% of rows)', () => ({ text: 'person12' })],
  ['text "example", largest amount first', () => ({ text: 'example', sortBy: 'amountMinor' })],
  ['text "person12", largest amount first', () => ({ text: 'person12', sortBy: 'amountMinor' })],
  ['text "person12", by status', () => ({ text: 'person12', sortBy: 'status', sortDir: 'asc' })],
  ['text "person1" + status FAILED', () => ({ text: 'person1', statuses: ['FAILED'] })],
  ['text "example" + one batch, by amount', (i) => ({ text: 'example', batchId: `batch-${(i * 7) % BATCHES}`, sortBy: 'amountMinor' })],
  ['text "person1" + USD + PENDING/PROCESSING', () => ({ text: 'person1', currencyCode: 'USD', statuses: ['PENDING', 'PROCESSING'] })],
  ['text "example" + KWD + FAILED (1.4% of rows)', () => ({ text: 'example', currencyCode: 'KWD', statuses: ['FAILED'] })],
  // The screen searches from MIN_HISTORY_SEARCH (3) characters; the CLI still asks shorter texts (a scan).
  ['text "77" (< 3 chars, LIKE)', () => ({ text: '77' }), OFF_SCREEN],
  ['text "p-" (< 3 chars, LIKE, every row)', () => ({ text: 'p-' }), OFF_SCREEN],
  ['everything, newest first, page 20', () => ({ page: 20 })],
  ['everything, newest first, page 2000', () => ({ page: 2000 })],
];

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;
const ms = (x: number) => x.toFixed(1).padStart(7);

async function timed(runs: number, run: (i: number) => Promise<unknown> | unknown): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const started = performance.now();
    await run(i);
    if (i > 0) times.push(performance.now() - started); // run 0 warms caches and plans
  }
  return times;
}

const cluster = await startCluster();
const pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
// pool.end() resolves once it has told its clients to end, not once the server has seen them go (pg-pool), so
// cluster.stop() can terminate one still closing (57P01), which the pool reports as an idle client's error:
// without a listener that error ended the process after the figures. Harmless then; said if it comes earlier.
let stopping = false;
pool.on('error', (error) => {
  if (!stopping) console.error(`an idle connection failed: ${error.message}`);
});
const dir = mkdtempSync(join(tmpdir(), 'bench-pg-history-'));
try {
  await migratePg(pool);
  const loadStarted = performance.now();
  // Indexes are built after the load (faster than maintaining them row by row), then put back as declared.
  const indexes = (await pool.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename = 'payments' AND indexname NOT IN ('payments_pkey', 'payments_kind_id_key')`,
  )).rows;
  for (const ix of indexes) await pool.query(`DROP INDEX ${ix.name}`);
  await pool.query(`INSERT INTO batches (id, file_name, sha256, row_count, totals_json, state, created_at, updated_at)
    SELECT 'batch-' || b, 'batch-' || b || '.csv', 'sha-' || b, ${PER_BATCH}, '[]', 'COMPLETED', ${START} + b::bigint * ${Math.floor(YEAR_MS / BATCHES)}, ${START} + b::bigint * ${Math.floor(YEAR_MS / BATCHES)}
    FROM generate_series(0, ${BATCHES - 1}) b`);
  await pool.query(`INSERT INTO payments (${COLUMNS}) SELECT ${values('pg')} FROM generate_series(0::bigint, ${TOTAL - 1}) n`);
  const loaded = performance.now();
  const client = await pool.connect();
  try {
    await client.query(`SET maintenance_work_mem = '1GB'`);
    for (const ix of indexes) await client.query(ix.def);
  } finally {
    client.release();
  }
  if (SORT_INDEXES) {
    for (const column of ['updated_at', 'currency_code', 'id']) await pool.query(`CREATE INDEX bench_sort_${column} ON payments (${column}, pk)`);
  }
  const indexed = performance.now();
  await pool.query('VACUUM ANALYZE payments');
  await pool.query('VACUUM ANALYZE batches');
  const size = (await pool.query<{ t: string; i: string }>(`SELECT pg_size_pretty(pg_table_size('payments')) t, pg_size_pretty(pg_indexes_size('payments')) i`)).rows[0]!;
  const pgVersion = (await pool.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
  console.log(`pg-history bench: ${TOTAL.toLocaleString('en')} payouts on PostgreSQL ${pgVersion} (${cpus().length} CPUs; default shared_buffers, fsync off)${SORT_INDEXES ? '; with an index per off-screen sort key too (--sort-indexes)' : ''}`);
  console.log(`  load ${((loaded - loadStarted) / 1000).toFixed(1)} s, indexes ${((indexed - loaded) / 1000).toFixed(1)} s, VACUUM ANALYZE ${((performance.now() - indexed) / 1000).toFixed(1)} s; table ${size.t}, indexes ${size.i}`);

  let journal: ReturnType<typeof openJournal> | null = null;
  if (WITH_SQLITE) {
    const started = performance.now();
    journal = openJournal(join(dir, 'journal.db'), { synchronous: 'NORMAL' });
    journal.db.exec(`INSERT INTO batches (id, file_name, sha256, row_count, totals_json, state, created_at, updated_at)
      WITH RECURSIVE s(b) AS (SELECT 0 UNION ALL SELECT b + 1 FROM s WHERE b < ${BATCHES - 1})
      SELECT 'batch-' || b, 'batch-' || b || '.csv', 'sha-' || b, ${PER_BATCH}, '[]', 'COMPLETED', ${START} + b * ${Math.floor(YEAR_MS / BATCHES)}, ${START} + b * ${Math.floor(YEAR_MS / BATCHES)} FROM s`);
    journal.db.exec(`INSERT INTO payments (${COLUMNS})
      WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < ${TOTAL - 1}) SELECT ${values('sqlite')} FROM s`);
    // No ANALYZE: the app never runs it, so the planner here has no statistics (main/store/sqlite/history-plan.ts).
    console.log(`  SQLite journal with the same rows: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  console.log(`  ${RUNS} runs each after a warm-up; ms; "screen": page of ${HISTORY_PAGE_SIZE} + a total counted to ${HISTORY_COUNT_AHEAD.toLocaleString('en')} past the page, a search's to ${HISTORY_SEARCH_COUNT_AHEAD.toLocaleString('en')} (as the History screen asks); "exact": with an exact total; then its statements alone`);
  console.log(`  ${'query (* = no screen offers it)'.padEnd(46)} ${'matches'.padStart(9)} | PG screen med  p95 | exact med   p95 | page med  count med | SQLite screen med  p95`);
  // As main/desk/history.ts asks: the count stops HISTORY_COUNT_AHEAD rows past the page (a search: HISTORY_SEARCH_COUNT_AHEAD).
  const screen = (q: HistoryQuery): HistoryQuery => ({ ...q, countLimit: screenCountLimit(((q.page ?? 0) + 1) * HISTORY_PAGE_SIZE, q) });
  const all: number[] = [];
  const allScreen: number[] = [];
  const allSqlite: number[] = [];
  const slowCounts: string[] = [];
  const slowPg: string[] = [];
  const slowSqlite: string[] = [];
  for (const [name, asked, offScreen] of QUERIES) {
    const make = (i: number): HistoryQuery => ({ pageSize: HISTORY_PAGE_SIZE, ...asked(i) });
    const total = (await queryHistoryPg(pool, make(0))).total;
    const capped = await timed(RUNS, (i) => queryHistoryPg(pool, screen(make(i))));
    const both = await timed(RUNS, (i) => queryHistoryPg(pool, make(i)));
    const page = await timed(RUNS, (i) => {
      const q = make(i);
      const { pageSize, page: n, column, dir: d } = historyPaging(q);
      const w = pgHistoryWhere(q);
      return pool.query(`SELECT p.* FROM payments p ${w.sql} ORDER BY p.${column} ${d}, p.pk ${d} LIMIT ${pageSize} OFFSET ${n * pageSize}`, w.params);
    });
    const count = await timed(RUNS, (i) => {
      const w = pgHistoryWhere(make(i));
      return pool.query(`SELECT COUNT(*) FROM payments p ${w.sql}`, w.params);
    });
    if (!offScreen) {
      all.push(...both);
      allScreen.push(...capped);
      if (p95(capped) >= TARGET_MS) slowPg.push(`${name} (${p95(capped).toFixed(0)})`);
    }
    if (median(count) > TARGET_MS) slowCounts.push(name);
    let sqlite = '';
    if (journal) {
      const j = journal;
      const want = j.history(make(0)).total;
      const times = await timed(Math.min(RUNS, 11), (i) => j.history(screen(make(i))));
      if (!offScreen) {
        allSqlite.push(...times);
        if (p95(times) >= TARGET_MS) slowSqlite.push(`${name} (${p95(times).toFixed(0)})`);
      }
      sqlite = `      ${ms(median(times))} ${ms(p95(times))}${want === total ? '' : `  (SQLite total ${want} ≠ ${total}!)`}`;
    }
    console.log(`  ${`${offScreen ? '* ' : ''}${name}`.padEnd(46)} ${total.toLocaleString('en').padStart(9)} | ${ms(median(capped))} ${ms(p95(capped))} | ${ms(median(both))} ${ms(p95(both))} | ${ms(median(page))} ${ms(median(count))}   |${sqlite}`);
  }
  console.log(`  PG as the screen asks: overall median ${median(allScreen).toFixed(1)} ms, p95 ${p95(allScreen).toFixed(1)} ms over ${allScreen.length} queries (target: p95 < ${TARGET_MS} ms for every kind)`);
  console.log(`  PG kinds with p95 >= ${TARGET_MS} ms as the screen asks: ${slowPg.length ? slowPg.join('; ') : 'none'}`);
  console.log(`  PG with an exact total: overall median ${median(all).toFixed(1)} ms, p95 ${p95(all).toFixed(1)} ms`);
  if (slowCounts.length) console.log(`  exact COUNT alone over ${TARGET_MS} ms for: ${slowCounts.join('; ')}`);
  if (journal) {
    console.log(`  SQLite as the screen asks: overall median ${median(allSqlite).toFixed(1)} ms, p95 ${p95(allSqlite).toFixed(1)} ms over ${allSqlite.length} queries`);
    console.log(`  SQLite kinds with p95 >= ${TARGET_MS} ms as the screen asks: ${slowSqlite.length ? slowSqlite.join('; ') : 'none'}`);
  }
  journal?.close();
} finally {
  stopping = true;
  await pool.end();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
