// Possible duplicates across history (issue 27): how long the check of a 100,000-row file against 1,000,000
// earlier payouts takes (target ≤ 3 s), on the SQLite journal and on the team database. The earlier payouts are
// written by one INSERT … SELECT per back end (created over the last 60 days, 8 in 9 paid or pending, 1 in 9
// failed); the file's rows reuse the account, amount and currency of one earlier payout in ten, half of them
// within the 30-day window. Timed: checkAgainstJournal, the step the import runs (lookups in slices of 2,000 rows
// plus the warnings), as validateFile calls it.
// Run: npx tsx bench/repeat-check.ts [--earlier 1000000] [--rows 100000] [--runs 3] [--no-pg]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { checkAgainstJournal } from '../main/csv/journal-checks';
import type { CsvJournalLookup, CsvValidRow } from '../main/csv/types';
import { openJournal } from '../main/store/sqlite';
import { earliestLikePayoutsPg } from '../main/store/postgres/desk-reads';
import { numberArg } from './args';
import { withScratchDatabase } from './scratch-database';

const EARLIER = numberArg('earlier', 1_000_000);
const ROWS = numberArg('rows', 100_000);
const RUNS = numberArg('runs', 3);
const WITH_PG = !process.argv.includes('--no-pg');
const TARGET_MS = 3_000;
const NOW = Date.UTC(2026, 10, 27);
const DAY = 86_400_000;
const WINDOW_DAYS = 30;

// Earlier payout n: account DE89…n, amount 100 + (n·7919 mod 500,000), created n/EARLIER of 60 days ago.
const h = '((n * 2654435761) % 4294967291)';
const COLUMNS = `kind, id, amount_minor, currency_code, account_name, account_number, payment_operator_code, payment_method_code,
  email_address, state, status, is_final, attempts, created_at, updated_at`;
const values = (dialect: 'pg' | 'sqlite') => {
  const text = (sql: string) => (dialect === 'pg' ? `(${sql})::text` : `CAST(${sql} AS TEXT)`);
  const account = dialect === 'pg' ? `'DE89' || lpad(n::text, 18, '0')` : `'DE89' || printf('%018d', n)`;
  const created = `(${NOW} - ${60 * DAY} + n * ${Math.floor((60 * DAY) / EARLIER)})`;
  const failed = `(${h} % 9 = 0)`;
  return `'payout', 'p-' || ${text('n')}, 100 + (n * 7919) % 500000, 'EUR', 'Beneficiary ' || ${text('n')}, ${account}, 'EU_SEPA', 'BANK_TRANSFER',
    'b' || ${text('n')} || '@example.com', 'ACCEPTED', CASE WHEN ${failed} THEN 'FAILED' ELSE 'SUCCESS' END, ${dialect === 'pg' ? 'true' : '1'}, 1, ${created}, ${created}`;
};
const accountOf = (n: number) => `DE89${String(n).padStart(18, '0')}`;
const amountOf = (n: number) => 100 + ((n * 7919) % 500_000);

/** The file: one row in ten like earlier payout k (k spread over the 60 days), the others new accounts. */
function fileRows(): CsvValidRow[] {
  const rows: CsvValidRow[] = [];
  for (let i = 0; i < ROWS; i++) {
    const like = i % 10 === 0 ? Math.floor(((i / 10) * 9973) % EARLIER) : null;
    const accountNumber = like === null ? `FR76${String(i).padStart(23, '0')}` : accountOf(like);
    rows.push({
      rowNumber: i + 2, idGenerated: true, extra: {},
      payout: { idPayout: `new-${i}`, amountMinor: like === null ? 1_000 + i : amountOf(like), currencyCode: 'EUR', accountName: `Payee ${i}`, accountNumber, paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: `payee${i}@example.com` },
    });
  }
  return rows;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeCheck(label: string, lookup: CsvJournalLookup, rows: CsvValidRow[]): Promise<number> {
  const times: number[] = [];
  let flagged = 0;
  for (let r = 0; r <= RUNS; r++) {
    const started = performance.now();
    const outcome = await checkAgainstJournal(rows, lookup, () => 'accountNumber', () => new Promise((resolve) => setImmediate(resolve)), { repeatWindowDays: WINDOW_DAYS, now: NOW });
    if (r > 0) times.push(performance.now() - started); // run 0 warms caches and plans
    flagged = outcome.warnings.filter((w) => w.code === 'POSSIBLE_DUPLICATE').length;
  }
  const m = median(times);
  console.log(`  ${label.padEnd(28)} median ${m.toFixed(0).padStart(6)} ms  [${Math.min(...times).toFixed(0)}–${Math.max(...times).toFixed(0)}]  flagged ${flagged.toLocaleString('en')} rows  (target ≤ ${TARGET_MS} ms: ${m <= TARGET_MS ? 'met' : 'missed'})`);
  return m;
}

const dir = mkdtempSync(join(tmpdir(), 'bench-repeat-'));
const rows = fileRows();
console.log(`repeat-check bench: ${ROWS.toLocaleString('en')} new rows against ${EARLIER.toLocaleString('en')} earlier payouts, window ${WINDOW_DAYS} days, ${RUNS} runs after a warm-up (${cpus().length} CPUs)`);
const journal = openJournal(join(dir, 'journal.db'), { synchronous: 'NORMAL' });
try {
  const loadStarted = performance.now();
  journal.db.exec(`INSERT INTO payments (${COLUMNS}) WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < ${EARLIER - 1}) SELECT ${values('sqlite')} FROM s`);
  journal.db.exec('ANALYZE');
  console.log(`  SQLite: ${EARLIER.toLocaleString('en')} payouts written and indexed in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
  await timeCheck('SQLite journal', journal, rows);
} finally {
  journal.close();
  rmSync(dir, { recursive: true, force: true });
}

if (WITH_PG) {
  await withScratchDatabase(async (pool) => {
    const loadStarted = performance.now();
    await pool.query(`INSERT INTO payments (${COLUMNS}) SELECT ${values('pg')} FROM generate_series(0::bigint, ${EARLIER - 1}) n`);
    await pool.query('VACUUM ANALYZE payments');
    console.log(`  PostgreSQL: ${EARLIER.toLocaleString('en')} payouts written and indexed in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
    const lookup: CsvJournalLookup = {
      existingPayoutIds: async () => new Set(),
      batchFileSubmitted: async () => false,
      knownBeneficiaryAccounts: async () => [],
      earliestLikePayouts: (keys, since, skip) => earliestLikePayoutsPg(pool, keys, since, skip),
    };
    await timeCheck('team database (PostgreSQL)', lookup, rows);
  });
}
