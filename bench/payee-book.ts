// The payee book on the send path: how long the approval gate's newOrChangedPayees hook (flagPayeeRows)
// takes for a 100,000-row batch against a journal of 100,000 earlier payouts that went to the gateway and a
// book of 10,000 saved payees (one in ten rows pays a changed account, one in ten a new payee), and the
// longest stall of the event loop meanwhile (the gate runs in the app's main process).
// Run: npx tsx bench/payee-book.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openJournal } from '../main/journal';
import { flagPayeeRows, type PayeeRow } from '../main/payees/match';
import { changeDigest, keysOf, type PayeeDetails } from '../main/payees/payee';
import { SqlitePayeeRepository } from '../main/payees/sqlite-repository';

const ROWS = 100_000;
const BOOK = 10_000;
const RUNS = 3;
const IBANS = ['DE89370400440532013000', 'FR1420041010050500013M02606', 'ES9121000418450200051332', 'NL91ABNA0417164300'];
const nameOf = (i: number) => (i % 10 === 0 ? `Müller, Jürgen ${i}` : `Beneficiary ${i}`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; stallMs: number }> {
  let last = performance.now();
  let stall = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const start = performance.now();
  const result = await work();
  const ms = performance.now() - start;
  running = false;
  stall = Math.max(stall, performance.now() - last);
  return { result, ms, stallMs: stall };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-payee-book-'));
  const journal = openJournal(join(dir, 'journal.db'), { synchronous: 'NORMAL' });
  try {
    const earlier = Array.from({ length: ROWS }, (_, i) => ({
      id: `old-${i}`, amountMinor: 100 + i, currencyCode: 'EUR', accountName: nameOf(i), accountNumber: IBANS[i % IBANS.length]!,
      paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: `payee${i}@example.com`,
    }));
    journal.createBatch({ fileName: 'earlier.csv', sha256: 'e'.repeat(64), rows: earlier });
    // Setup only: the earlier batch went to the gateway.
    journal.db.exec(`UPDATE payments SET state = 'ACCEPTED' WHERE batch_id IS NOT NULL`);
    const repo = new SqlitePayeeRepository(journal);
    const at = Date.now();
    await repo.addVersions(Array.from({ length: BOOK }, (_, i) => {
      const d: PayeeDetails = { name: nameOf(i), accountNumber: IBANS[i % IBANS.length]!, operatorCode: 'EU_SEPA', emailAddress: `payee${i}@example.com`, referenceDefault: null };
      return {
        payeeId: `payee-${i}`, version: 1, baseVersion: null, ...d, ...keysOf(d), source: 'import' as const, sourceRef: 'bench', bankChange: false,
        changeDigest: changeDigest({ profileId: 'bench', payeeId: `payee-${i}`, version: 1, before: null, after: d, createdBy: null, createdAt: at }),
        createdAt: at, createdBy: null, effectiveAt: at, closedAt: null, closedBy: null, closeReason: null,
      };
    }));
    const rows: PayeeRow[] = Array.from({ length: ROWS }, (_, i) => ({
      id: `new-${i}`, payeeName: (i % 10 === 9 ? `Stranger ${i}` : nameOf(i)).toUpperCase(), email: i % 10 === 9 ? `stranger${i}@example.com` : `payee${i}@example.com`,
      account: IBANS[(i % 10 === 5 ? i + 1 : i) % IBANS.length]!, operator: 'EU_SEPA',
    }));
    const times: number[] = [];
    const stalls: number[] = [];
    let counts = '';
    for (let run = 0; run < RUNS; run++) {
      const r = await longestStall(() => flagPayeeRows(repo, rows));
      times.push(r.ms);
      stalls.push(r.stallMs);
      counts = `new ${r.result.filter((f) => f.flag === 'new').length.toLocaleString('en-US')}, changed ${r.result.filter((f) => f.flag === 'changed').length.toLocaleString('en-US')}`;
    }
    console.log(`${ROWS.toLocaleString('en-US')}-row batch, ${ROWS.toLocaleString('en-US')} earlier payouts, ${BOOK.toLocaleString('en-US')} payees in the book; ${RUNS} runs (median)`);
    console.log(`  flagPayeeRows (the gate's hook): ${median(times).toFixed(0)} ms; flagged: ${counts}`);
    console.log(`  longest event-loop stall meanwhile: ${median(stalls).toFixed(0)} ms`);
  } finally {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
