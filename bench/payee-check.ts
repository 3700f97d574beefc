// The "bank details changed" check at scale: a 100,000-row file whose every payee the journal already knows
// (100,000 earlier payouts, one in ten with an accented name), imported against that journal. Reports the
// import time with the journal and without it, so the cost of the payee lookups shows on its own.
// Run: npx tsx bench/payee-check.ts [--rows 100000] [--runs 3]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importPayoutCsv } from '../main/csv/import';
import { openJournal } from '../main/store/sqlite';
import { numberArg } from './args';

const ROWS = numberArg('rows', 100_000);
const RUNS = numberArg('runs', 3);
const IBANS = ['DE89370400440532013000', 'FR1420041010050500013M02606', 'ES9121000418450200051332', 'NL91ABNA0417164300'];
const nameOf = (i: number) => (i % 10 === 0 ? `Müller, Jürgen ${i}` : `Beneficiary ${i}`);

function buildFile(): Uint8Array {
  const lines = ['idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress'];
  // Upper case in the file: the journal has the names as written first, so every lookup must fold case.
  for (let i = 0; i < ROWS; i++) lines.push(`,${i + 1}.00,EUR,"${nameOf(i).toUpperCase()}",${IBANS[i % IBANS.length]},EU_SEPA,BANK_TRANSFER,payee${i}@example.com`);
  return new TextEncoder().encode(`${lines.join('\r\n')}\r\n`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-payee-'));
  const journal = openJournal(join(dir, 'journal.db'), { synchronous: 'NORMAL' });
  try {
    // Paid before to another account than the file's: every row gets a bank-details warning.
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      id: `old-${i}`, amountMinor: 100 + i, currencyCode: 'EUR', accountName: nameOf(i), accountNumber: IBANS[(i + 1) % IBANS.length]!,
      paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: `payee${i}@example.com`,
    }));
    journal.createBatch({ fileName: 'earlier.csv', sha256: 'e'.repeat(64), rows });
    const bytes = buildFile();
    const without: number[] = [];
    const withJournal: number[] = [];
    let warnings = 0;
    for (let run = 0; run < RUNS; run++) {
      let start = performance.now();
      await importPayoutCsv(bytes, { fileName: 'payees.csv' });
      without.push(performance.now() - start);
      start = performance.now();
      const r = await importPayoutCsv(bytes, { fileName: 'payees.csv', journal });
      withJournal.push(performance.now() - start);
      warnings = r.warnings.length;
    }
    console.log(`${ROWS.toLocaleString('en-US')} rows, every payee known to a journal of ${ROWS.toLocaleString('en-US')} payouts; ${RUNS} runs (median)`);
    console.log(`  import without journal: ${median(without).toFixed(0)} ms`);
    console.log(`  import with journal:    ${median(withJournal).toFixed(0)} ms (bank-details warnings: ${warnings.toLocaleString('en-US')})`);
  } finally {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
