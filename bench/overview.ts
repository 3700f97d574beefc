// The Overview (home screen, issue 29): how long overview:get's work takes with 1,000,000 payouts in the journal
// (target: opens < 500 ms), on the SQLite journal and on the team database. The payouts are written by one
// INSERT … SELECT per back end: accepted over the last 90 days (about 78,000 in the last seven), in three
// currencies, 1 in 12 failed, 1 in 50 returned, 1 in 100 still in flight, fees on the paid ones; plus 2,000
// balance snapshots. Timed: buildOverview (main/desk/overview.ts), as the service calls it: the first call after
// the journal is opened (what a person waits for when the app starts) and the median of the calls after it.
// Run: npx tsx bench/overview.ts [--payouts 1000000] [--runs 5] [--no-pg]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildOverview } from '../main/desk/overview';
import type { DeskJournal } from '../main/journal/port';
import { openJournal } from '../main/store/sqlite';
import { latestBalancesPg, payoutActivityPg, pendingPayoutTotalsPg } from '../main/store/postgres/desk-reads';
import { numberArg } from './args';
import { firstThenMedian, firstThenMedianText } from './first-then-median';
import { withScratchDatabase } from './scratch-database';

const PAYOUTS = numberArg('payouts', 1_000_000);
const RUNS = numberArg('runs', 5);
const WITH_PG = !process.argv.includes('--no-pg');
const TARGET_MS = 500;
const NOW = Date.UTC(2026, 10, 27, 12);
const DAY = 86_400_000;
const SPAN_DAYS = 90;
const decimalsOf = (code: string) => (code === 'JPY' ? 0 : 2);

const COLUMNS = `kind, id, amount_minor, currency_code, account_name, account_number, payment_operator_code, payment_method_code,
  email_address, state, status, is_final, fee_minor, fee_currency_code, attempts, created_at, updated_at, accepted_at`;
const values = (dialect: 'pg' | 'sqlite') => {
  const text = (sql: string) => (dialect === 'pg' ? `(${sql})::text` : `CAST(${sql} AS TEXT)`);
  const bool = (sql: string) => (dialect === 'pg' ? `(${sql})` : `CASE WHEN ${sql} THEN 1 ELSE 0 END`);
  const h = '((n * 2654435761) % 4294967291)';
  const at = `(${NOW} - ${SPAN_DAYS * DAY} + n * ${Math.floor((SPAN_DAYS * DAY) / PAYOUTS)})`;
  const status = `CASE WHEN ${h} % 100 = 0 THEN 'PROCESSING' WHEN ${h} % 12 = 1 THEN 'FAILED' WHEN ${h} % 50 = 2 THEN 'RETURNED' ELSE 'SUCCESS' END`;
  const currency = `CASE n % 3 WHEN 0 THEN 'EUR' WHEN 1 THEN 'USD' ELSE 'JPY' END`;
  return `'payout', 'p-' || ${text('n')}, 100 + (n * 7919) % 500000, ${currency}, 'Beneficiary ' || ${text('n')}, 'DE89' || ${text('n')},
    'EU_SEPA', 'BANK_TRANSFER', 'b' || ${text('n')} || '@example.com', 'ACCEPTED', ${status}, ${bool(`${h} % 100 <> 0`)},
    CASE WHEN ${h} % 12 = 1 OR ${h} % 100 = 0 THEN NULL ELSE 25 END, CASE WHEN ${h} % 12 = 1 OR ${h} % 100 = 0 THEN NULL ELSE ${currency} END,
    1, ${at} - 60000, ${at}, ${at}`;
};
const SNAPSHOTS = `currency_code, available_minor, reserved_minor, observed_at`;
const snapshotValues = `CASE n % 3 WHEN 0 THEN 'EUR' WHEN 1 THEN 'USD' ELSE 'JPY' END, 100000000 + n, 0, ${NOW} - ${SPAN_DAYS * DAY} + n * ${Math.floor((SPAN_DAYS * DAY) / 2_000)}`;

async function timeOverview(label: string, journal: DeskJournal): Promise<void> {
  let sent = 0;
  const t = await firstThenMedian(RUNS, async () => {
    const view = await buildOverview(journal, decimalsOf, NOW);
    sent = view.currencies.reduce((n, c) => n + c.lastSevenDays.sent.count, 0);
  });
  console.log(`  ${label.padEnd(28)} ${firstThenMedianText(t, TARGET_MS)}  ${sent.toLocaleString('en')} payouts in the last 7 days`);
}

const dir = mkdtempSync(join(tmpdir(), 'bench-overview-'));
console.log(`overview bench: ${PAYOUTS.toLocaleString('en')} payouts over ${SPAN_DAYS} days, first call and ${RUNS} more (${cpus().length} CPUs)`);
try {
  const path = join(dir, 'journal.db');
  const writer = openJournal(path, { synchronous: 'NORMAL' });
  const loadStarted = performance.now();
  writer.db.exec(`INSERT INTO payments (${COLUMNS}) WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < ${PAYOUTS - 1}) SELECT ${values('sqlite')} FROM s`);
  writer.db.exec(`INSERT INTO balance_snapshots (${SNAPSHOTS}) WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 1999) SELECT ${snapshotValues} FROM s`);
  writer.db.exec('ANALYZE');
  writer.close();
  console.log(`  SQLite: ${PAYOUTS.toLocaleString('en')} payouts written and indexed in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
  // Opened again, as the app opens it: the first call pays for its statements and the file's pages.
  const journal = openJournal(path);
  try {
    await timeOverview('SQLite journal', journal);
  } finally {
    journal.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (WITH_PG) {
  await withScratchDatabase(async (pool) => {
    const loadStarted = performance.now();
    await pool.query(`INSERT INTO payments (${COLUMNS}) SELECT ${values('pg')} FROM generate_series(0::bigint, ${PAYOUTS - 1}) n`);
    await pool.query(`INSERT INTO balance_snapshots (${SNAPSHOTS}) SELECT ${snapshotValues} FROM generate_series(0::bigint, 1999) n`);
    await pool.query('VACUUM ANALYZE payments');
    await pool.query('VACUUM ANALYZE balance_snapshots');
    console.log(`  PostgreSQL: ${PAYOUTS.toLocaleString('en')} payouts written and indexed in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
    // The team journal's three reads, on the pool (its other methods are not used by the Overview).
    const journal = {
      payoutActivity: (starts: number[]) => payoutActivityPg(pool, starts),
      latestBalances: () => latestBalancesPg(pool),
      pendingPayoutTotals: () => pendingPayoutTotalsPg(pool),
    } as unknown as DeskJournal;
    await timeOverview('team database (PostgreSQL)', journal);
  });
}
