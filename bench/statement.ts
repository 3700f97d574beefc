// Statements (issue 28): how long a month's statement takes with 1,000,000 payouts in the journal (target: < 2 s, what
// a person waits after "Make statement"), on the SQLite journal and on the team database. The payouts are written as
// bench/overview.ts writes them (90 days, three currencies, 1 in 12 failed, 1 in 50 returned, 1 in 100 in flight),
// with the gateway's processedAt 30 s after acceptance and a SUCCESS observation for each returned one; a balance read
// every ~65 minutes. Timed, for 29 days that ended yesterday (a closed period, no gateway read): buildStatement, what
// the screen shows, and buildStatementWithEntries, what a file is made from (main/statements/build.ts); the first
// call after the journal is opened and the median of the calls after it.
// Run: npx tsx bench/statement.ts [--payouts 1000000] [--runs 3] [--no-pg]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DeskJournal } from '../main/journal/port';
import { buildStatement, buildStatementWithEntries } from '../main/statements/build';
import { openJournal } from '../main/store/sqlite';
import { balanceAtPg, balanceSeriesPg, latestBalancesPg, statementPaymentsPg } from '../main/store/postgres/desk-reads';
import { numberArg } from './args';
import { firstThenMedian, firstThenMedianText } from './first-then-median';
import { withScratchDatabase } from './scratch-database';

const PAYOUTS = numberArg('payouts', 1_000_000);
const RUNS = numberArg('runs', 3);
const WITH_PG = !process.argv.includes('--no-pg');
const TARGET_MS = 2_000;
const NOW = Date.UTC(2026, 10, 27, 12);
const DAY = 86_400_000;
const SPAN_DAYS = 90;
const PERIOD = { from: NOW - 30 * DAY, to: NOW - DAY };
const decimalsOf = (code: string) => (code === 'JPY' ? 0 : 2);

const COLUMNS = `kind, id, amount_minor, currency_code, account_name, account_number, payment_operator_code, payment_method_code,
  email_address, state, status, is_final, fee_minor, fee_currency_code, processed_at, attempts, created_at, updated_at, accepted_at`;
const values = (dialect: 'pg' | 'sqlite') => {
  const text = (sql: string) => (dialect === 'pg' ? `(${sql})::text` : `CAST(${sql} AS TEXT)`);
  const bool = (sql: string) => (dialect === 'pg' ? `(${sql})` : `CASE WHEN ${sql} THEN 1 ELSE 0 END`);
  const isoOf = (ms: string) => (dialect === 'pg' ? `to_char(to_timestamp((${ms}) / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : `strftime('%Y-%m-%dT%H:%M:%fZ', (${ms}) / 1000.0, 'unixepoch')`);
  const h = '((n * 2654435761) % 4294967291)';
  const at = `(${NOW} - ${SPAN_DAYS * DAY} + n * ${Math.floor((SPAN_DAYS * DAY) / PAYOUTS)})`;
  const inFlight = `${h} % 100 = 0`;
  const status = `CASE WHEN ${inFlight} THEN 'PROCESSING' WHEN ${h} % 12 = 1 THEN 'FAILED' WHEN ${h} % 50 = 2 THEN 'RETURNED' ELSE 'SUCCESS' END`;
  const currency = `CASE n % 3 WHEN 0 THEN 'EUR' WHEN 1 THEN 'USD' ELSE 'JPY' END`;
  const noFee = `${h} % 12 = 1 OR ${inFlight}`;
  return `'payout', 'p-' || ${text('n')}, 100 + (n * 7919) % 500000, ${currency}, 'Beneficiary ' || ${text('n')}, 'DE89' || ${text('n')},
    'EU_SEPA', 'BANK_TRANSFER', 'b' || ${text('n')} || '@example.com', 'ACCEPTED', ${status}, ${bool(`NOT (${inFlight})`)},
    CASE WHEN ${noFee} THEN NULL ELSE 25 END, CASE WHEN ${noFee} THEN NULL ELSE ${currency} END,
    CASE WHEN ${inFlight} THEN NULL ELSE ${isoOf(`${at} + 30000`)} END, 1, ${at} - 60000, ${at} + 31000, ${at}`;
};
/** The SUCCESS observation a returned payout had before its return. */
const SUCCESS_EVENTS = (dialect: 'pg' | 'sqlite') =>
  `INSERT INTO status_events (kind, id, status, source, observed_at, raw_json)
   SELECT 'payout', id, 'SUCCESS', 'poll', accepted_at + 31000, '{"process":{"status":"SUCCESS","processedAt":"' || ${dialect === 'pg' ? "to_char(to_timestamp((accepted_at + 30000) / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')" : "strftime('%Y-%m-%dT%H:%M:%fZ', (accepted_at + 30000) / 1000.0, 'unixepoch')"} || '"}}'
   FROM payments WHERE status = 'RETURNED'`;
const SNAPSHOTS = `currency_code, available_minor, reserved_minor, observed_at`;
const snapshotValues = `CASE n % 3 WHEN 0 THEN 'EUR' WHEN 1 THEN 'USD' ELSE 'JPY' END, 100000000000 + n, 0, ${NOW} - ${SPAN_DAYS * DAY} + n * ${Math.floor((SPAN_DAYS * DAY) / 2_000)}`;

/** The screen's statement (figures only), then the one a file is made from (every movement listed, in order). */
async function timeStatement(label: string, journal: DeskJournal): Promise<void> {
  const screen = await firstThenMedian(RUNS, () => buildStatement(journal, decimalsOf, PERIOD, null, NOW));
  console.log(`  ${label.padEnd(28)} ${'the screen'.padEnd(24)} ${firstThenMedianText(screen, TARGET_MS, 6)}`);
  let moved = 0;
  const file = await firstThenMedian(RUNS, async () => {
    const { entries } = await buildStatementWithEntries(journal, decimalsOf, PERIOD, null, NOW);
    moved = [...entries.values()].reduce((n, list) => n + list.length, 0);
  });
  console.log(`  ${label.padEnd(28)} ${'a file (every movement)'.padEnd(24)} ${firstThenMedianText(file, TARGET_MS, 6)}  ${moved.toLocaleString('en')} movements`);
}

const dir = mkdtempSync(join(tmpdir(), 'bench-statement-'));
console.log(`statement bench: ${PAYOUTS.toLocaleString('en')} payouts over ${SPAN_DAYS} days, a 29-day statement, first call and ${RUNS} more (${cpus().length} CPUs)`);
try {
  const path = join(dir, 'journal.db');
  const writer = openJournal(path, { synchronous: 'NORMAL' });
  const loadStarted = performance.now();
  writer.db.exec(`INSERT INTO payments (${COLUMNS}) WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < ${PAYOUTS - 1}) SELECT ${values('sqlite')} FROM s`);
  writer.db.exec(SUCCESS_EVENTS('sqlite'));
  writer.db.exec(`INSERT INTO balance_snapshots (${SNAPSHOTS}) WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 1999) SELECT ${snapshotValues} FROM s`);
  writer.close();
  console.log(`  SQLite: ${PAYOUTS.toLocaleString('en')} payouts written in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
  const journal = openJournal(path);
  try {
    await timeStatement('SQLite journal', journal);
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
    await pool.query(SUCCESS_EVENTS('pg'));
    await pool.query(`INSERT INTO balance_snapshots (${SNAPSHOTS}) SELECT ${snapshotValues} FROM generate_series(0::bigint, 1999) n`);
    for (const table of ['payments', 'status_events', 'balance_snapshots']) await pool.query(`VACUUM ANALYZE ${table}`);
    console.log(`  PostgreSQL: ${PAYOUTS.toLocaleString('en')} payouts written in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
    // The team journal's reads a statement makes, on the pool.
    const journal = {
      latestBalances: () => latestBalancesPg(pool),
      balanceAt: (code: string, at: number) => balanceAtPg(pool, code, at),
      balanceSeries: (code: string, from?: number, to?: number) => balanceSeriesPg(pool, code, from, to),
      statementPayments: (since: number, acceptedBy: number) => statementPaymentsPg(pool, since, acceptedBy),
    } as unknown as DeskJournal;
    await timeStatement('team database (PostgreSQL)', journal);
  });
}
