// Batch CSV import speed: 100,000 rows parsed and validated, against bare csv-parse on the same bytes,
// and the longest event-loop stall while importing. Run: npx tsx bench/csv.ts
// Targets (issue 5): import < 1.5 s; within 2x of the bare parser; no event-loop stall > 50 ms.
import { performance } from 'node:perf_hooks';
import { parse as parseSync } from 'csv-parse/sync';
import { exportBatchResultsCsvAsync } from '../main/csv/export';
import { importPayoutCsv } from '../main/csv/import';
import type { CsvImportOptions } from '../main/csv/types';

const ROWS = 100_000;
const RUNS = 5;
const IBANS = [
  'DE89370400440532013000', 'FR1420041010050500013M02606', 'ES9121000418450200051332', 'NL91ABNA0417164300',
  'IT60X0542811101000000123456', 'AT611904300234573201', 'BE68539007547034', 'CH9300762011623852957',
];

function buildFile(): Uint8Array {
  const lines = ['idPayout,Amount,Currency,Beneficiary name,IBAN,Operator,Method,E-mail,Reference,Cost centre'];
  for (let i = 0; i < ROWS; i++) {
    const amount = `${i + 1}.${String(i % 100).padStart(2, "0")}`; // distinct: no duplicate-row warnings
    const name = i % 10 === 0 ? `"Müller, Jürgen ${i}"` : `Beneficiary ${i}`;
    lines.push(`B-${i},${amount},EUR,${name},${IBANS[i % IBANS.length]},EU_SEPA,BANK_TRANSFER,payee${i}@example.com,Invoice ${i},CC-${i % 7}`);
  }
  return new TextEncoder().encode(`\uFEFF${lines.join('\r\n')}\r\n`);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const ms = (value: number): string => `${value.toFixed(0)} ms`;

async function main(): Promise<void> {
  const bytes = buildFile();
  const text = new TextDecoder().decode(bytes);
  const options: CsvImportOptions = {
    currencies: new Map([['EUR', 2]]),
    operators: [{ code: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['EUR'] }],
    maxAmountMinor: 100_000_000,
  };
  console.log(`file: ${ROWS.toLocaleString('en-US')} rows, ${(bytes.length / 1024 / 1024).toFixed(1)} MB; ${RUNS} runs each (median, best)`);

  const full: number[] = [];
  let lastResult: Awaited<ReturnType<typeof importPayoutCsv>> | null = null;
  const gaps: number[] = [];
  let over50 = 0;
  for (let run = 0; run < RUNS; run++) {
    let last = performance.now();
    let maxGap = 0;
    const monitor = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      if (now - last > 50) over50++;
      last = now;
    }, 1);
    const start = performance.now();
    const result = await importPayoutCsv(bytes, options);
    lastResult = result;
    full.push(performance.now() - start);
    clearInterval(monitor);
    maxGap = Math.max(maxGap, performance.now() - last);
    gaps.push(maxGap);
    if (result.counts.valid !== ROWS) throw new Error(`import accepted ${result.counts.valid} rows; first error: ${result.errors[0]?.message}`);
    console.log(`  import run ${run + 1}: ${ms(full[run] ?? NaN)}, longest event-loop gap ${ms(maxGap)}`);
  }

  const bare: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const records: string[][] = parseSync(text, { delimiter: ',', bom: true, relax_column_count: true });
    bare.push(performance.now() - start);
    if (records.length !== ROWS + 1) throw new Error(`bare parser read ${records.length} records`);
  }

  const ratio = median(full) / median(bare);
  console.log(`bare csv-parse (sync, no validation): median ${ms(median(bare))}, best ${ms(Math.min(...bare))}`);
  console.log(`importPayoutCsv (decode, hash, parse, validate): median ${ms(median(full))}, best ${ms(Math.min(...full))}  [target < 1500 ms]`);
  console.log(`ratio import / bare parser (medians): ${ratio.toFixed(2)}x  [target <= 2x]`);
  console.log(
    `longest event-loop gap during an import: median ${ms(median(gaps))}, worst ${ms(Math.max(...gaps))}; gaps over 50 ms in all runs: ${over50}  [target < 50 ms]`,
  );

  if (lastResult) {
    const rows = lastResult.rows.map((r) => ({ payout: r.payout, extra: r.extra, status: 'SUCCESS', feeMinor: 25, processedAt: '2024-06-01T10:00:00.000Z' }));
    let last = performance.now();
    let maxGap = 0;
    const monitor = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 1);
    const start = performance.now();
    const csv = await exportBatchResultsCsvAsync(rows);
    const took = performance.now() - start;
    clearInterval(monitor);
    console.log(`exportBatchResultsCsvAsync of the ${ROWS.toLocaleString('en-US')} rows: ${ms(took)} (${(csv.length / 1024 / 1024).toFixed(1)} M characters), longest event-loop gap ${ms(maxGap)}`);
  }
  console.log('(a gap includes garbage-collector pauses and time the OS gives to other processes; run with --trace-gc to see pauses)');
}

await main();
