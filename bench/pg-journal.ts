// Write-side speed of the team journal (PgJournal) on a throwaway cluster (the test harness's): createBatch
// of 300, 10,000 and 100,000 payouts (each one transaction: the id check, then rows, intents and QUEUED
// events in one statement over a json parameter, then the audit entry), and one payout's send as the engine
// drives it (claimSend, confirm, the create's answer,
// release): the round trips a team desk adds per payout. Prints figures; there is no target to pass yet.
// Run: npx tsx bench/pg-journal.ts [--sends 200] [--max-batch 100000]
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { PgJournal } from '../main/store/postgres/journal';
import type { NewPayment } from '../main/journal/types';
import { freshDatabase, startCluster } from '../test/integration/postgres/cluster';
import { numberArg } from './args';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SENDS = arg('--sends', 200);
/** The largest batch created (the suite's smoke run keeps it small). */
const MAX_BATCH = numberArg('max-batch', 100_000);

const payout = (id: string, i: number): NewPayment => ({
  id, amountMinor: 100 + i, currencyCode: i % 3 ? 'EUR' : 'USD', accountName: `Beneficiary ${i}`, accountNumber: `DE89${String(i).padStart(18, '0')}`,
  paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: `person${i}@example.com`, reference: `INV-${i}`,
});

const cluster = await startCluster();
try {
  const pool = new pg.Pool({ connectionString: await freshDatabase(cluster.url), max: 8 });
  // pool.end() resolves once it has told its clients to end, not once the server has seen them go (pg-pool), so
  // cluster.stop() can terminate one still closing (57P01), which the pool reports as an idle client's error:
  // without a listener that error ended the process after the figures. Harmless then; said if it comes earlier.
  let stopping = false;
  pool.on('error', (error) => {
    if (!stopping) console.error(`an idle connection failed: ${error.message}`);
  });
  const journal = await PgJournal.open(pool, { deskId: `bench:${randomUUID()}` });
  try {
    for (const size of new Set([300, 10_000, 100_000].map((n) => Math.min(n, MAX_BATCH)))) {
      const rows = Array.from({ length: size }, (_, i) => payout(`b${size}-${i}`, i));
      const t0 = performance.now();
      await journal.createBatch({ fileName: `${size}.csv`, sha256: `h${size}`, rows });
      const ms = performance.now() - t0;
      console.log(`createBatch ${size.toLocaleString('en')} rows: ${ms.toFixed(0)} ms (${((size / ms) * 1000).toFixed(0)} rows/s)`);
    }
    const ids = Array.from({ length: SENDS }, (_, i) => `s-${i}`);
    await journal.createBatch({ fileName: 'sends.csv', sha256: 'hs', rows: ids.map((id, i) => payout(id, i)) });
    const times: number[] = [];
    for (const id of ids) {
      const t0 = performance.now();
      const claim = await journal.claimSend('payout', id);
      if (!claim?.confirm()) throw new Error(`no send of ${id}`);
      await journal.recordObservationSoon('payout', id, { status: 'PENDING', source: 'create', isFinal: false, nextPollAt: Date.now() + 60_000 });
      await claim.release();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(2);
    console.log(`one send's journal writes (claim, SENDING, answer, release), ${SENDS} in a row: median ${q(0.5)} ms, p95 ${q(0.95)} ms`);
  } finally {
    stopping = true;
    await journal.close();
    await pool.end();
  }
} finally {
  await cluster.stop();
}
