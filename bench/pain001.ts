// pain.001 import speed: a payment run of 100,000 credit transfers (pain.001.001.09, 100 payment groups) read,
// checked and mapped to payout rows, with the checks against an (empty) SQLite journal that a desk runs; the
// longest event-loop stall while importing; and the pain.002 status report of the same rows.
// Run: npx tsx bench/pain001.ts [--rows 100000] [--runs 3] [--write FILE]
// Target (issue 27): 100,000 transactions import in ≤ 3 s on this machine.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importPain001, type Pain001ImportOptions } from '../main/iso20022/pain001';
import { pain002StatusReport } from '../main/iso20022/pain002';
import type { PaymentRecord } from '../main/journal';
import { openJournal } from '../main/store/sqlite';
import { numberArg } from './args';

const ROWS = numberArg('rows', 100_000);
const RUNS = numberArg('runs', 3);
const PER_GROUP = 1000;
const IBANS = [
  'DE89370400440532013000', 'FR1420041010050500013M02606', 'ES9121000418450200051332', 'NL91ABNA0417164300',
  'IT60X0542811101000000123456', 'AT611904300234573201', 'BE68539007547034',
];

/** The run as an ERP writes it: one line per element group, amounts with two decimals, exact control sums. */
function buildFile(): Uint8Array {
  const parts: string[] = [];
  const cents = (i: number): number => (i + 1) * 100 + (i % 100);
  const text = (minor: bigint): string => `${minor / 100n}.${String(minor % 100n).padStart(2, '0')}`;
  let total = 0n;
  for (let i = 0; i < ROWS; i++) total += BigInt(cents(i));
  parts.push(
    '<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn>\n',
    `<GrpHdr><MsgId>BENCH-RUN-1</MsgId><CreDtTm>2026-03-02T09:00:00</CreDtTm><NbOfTxs>${ROWS}</NbOfTxs><CtrlSum>${text(total)}</CtrlSum><InitgPty><Nm>Bench ERP</Nm></InitgPty></GrpHdr>\n`,
  );
  for (let g = 0; g * PER_GROUP < ROWS; g++) {
    const first = g * PER_GROUP;
    const last = Math.min(ROWS, first + PER_GROUP);
    let sum = 0n;
    for (let i = first; i < last; i++) sum += BigInt(cents(i));
    parts.push(
      `<PmtInf><PmtInfId>PI-${g}</PmtInfId><PmtMtd>TRF</PmtMtd><NbOfTxs>${last - first}</NbOfTxs><CtrlSum>${text(sum)}</CtrlSum>`,
      '<PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl></PmtTpInf><ReqdExctnDt><Dt>2026-03-03</Dt></ReqdExctnDt><Dbtr><Nm>Bench GmbH</Nm></Dbtr>',
      '<DbtrAcct><Id><IBAN>DE02120300000000202051</IBAN></Id></DbtrAcct><DbtrAgt><FinInstnId><BICFI>BYLADEM1001</BICFI></FinInstnId></DbtrAgt>\n',
    );
    for (let i = first; i < last; i++) {
      parts.push(
        `<CdtTrfTxInf><PmtId><InstrId>I-${i}</InstrId><EndToEndId>E2E-${i}</EndToEndId></PmtId><Amt><InstdAmt Ccy="EUR">${text(BigInt(cents(i)))}</InstdAmt></Amt>`,
        `<Cdtr><Nm>Supplier ${i}</Nm><CtctDtls><EmailAdr>ap${i}@example.com</EmailAdr></CtctDtls></Cdtr><CdtrAcct><Id><IBAN>${IBANS[i % IBANS.length]}</IBAN></Id></CdtrAcct>`,
        `<RmtInf><Ustrd>Invoice ${i}</Ustrd></RmtInf></CdtTrfTxInf>\n`,
      );
    }
    parts.push('</PmtInf>\n');
  }
  parts.push('</CstmrCdtTrfInitn></Document>\n');
  return new TextEncoder().encode(parts.join(''));
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const ms = (value: number): string => `${value.toFixed(0)} ms`;

async function main(): Promise<void> {
  const bytes = buildFile();
  const home = mkdtempSync(join(tmpdir(), 'bench-pain001-'));
  const journal = openJournal(join(home, 'journal.db'));
  try {
    const options: Pain001ImportOptions = {
      currencies: new Map([['EUR', 2]]),
      operators: [{ code: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['EUR'] }],
      maxAmountMinor: 1_000_000_000,
      journal,
      // The run's MsgId and every EndToEndId looked up in the journal, as the desk's review does.
      paymentRuns: journal,
    };
    console.log(`file: ${ROWS.toLocaleString('en-US')} transactions in ${Math.ceil(ROWS / PER_GROUP)} payment groups, ${(bytes.length / 1024 / 1024).toFixed(1)} MB; ${RUNS} runs`);
    const took: number[] = [];
    const gaps: number[] = [];
    let result: Awaited<ReturnType<typeof importPain001>> | null = null;
    for (let run = 0; run < RUNS; run++) {
      let last = performance.now();
      let maxGap = 0;
      const monitor = setInterval(() => {
        const now = performance.now();
        maxGap = Math.max(maxGap, now - last);
        last = now;
      }, 1);
      const start = performance.now();
      result = await importPain001(bytes, options);
      took.push(performance.now() - start);
      clearInterval(monitor);
      gaps.push(Math.max(maxGap, performance.now() - last));
      if (result.counts.valid !== ROWS) throw new Error(`import accepted ${result.counts.valid} transactions; first error: ${result.errors[0]?.message}`);
      console.log(`  import run ${run + 1}: ${ms(took[run] ?? NaN)}, longest event-loop gap ${ms(gaps[run] ?? NaN)}`);
    }
    console.log(`importPain001 (hash, parse, control sums, row and journal checks, run references): median ${ms(median(took))}, best ${ms(Math.min(...took))}  [target <= 3000 ms]`);
    console.log(`longest event-loop gap during an import: median ${ms(median(gaps))}, worst ${ms(Math.max(...gaps))}`);

    if (result) {
      // The report of the same rows, as if every one was paid.
      const now = Date.now();
      const payments = result.rows.map(
        (r) => ({ ...r.payout, id: r.payout.idPayout, state: 'ACCEPTED', gatewayStatus: 'SUCCESS', acceptedAt: now, details: { extra: r.extra } }) as unknown as PaymentRecord,
      );
      let last = performance.now();
      let maxGap = 0;
      const monitor = setInterval(() => {
        const at = performance.now();
        maxGap = Math.max(maxGap, at - last);
        last = at;
      }, 1);
      const start = performance.now();
      const xml = await pain002StatusReport({ messageId: 'BENCH-STS-1', createdAt: new Date(now).toISOString(), initiatingParty: 'Bench', payments, decimalsOf: () => 2 });
      const took = performance.now() - start;
      clearInterval(monitor);
      console.log(`pain002StatusReport of the ${ROWS.toLocaleString('en-US')} rows (xmlbuilder2): ${ms(took)} (${(xml.length / 1024 / 1024).toFixed(1)} M characters), longest event-loop gap ${ms(maxGap)}`);
    }
  } finally {
    journal.close();
    rmSync(home, { recursive: true, force: true });
  }
}

// --write FILE: only write the generated payment run to FILE (to profile the reader, or to drop it on the app).
const writeTo = process.argv.indexOf('--write');
if (writeTo !== -1) writeFileSync(process.argv[writeTo + 1] ?? 'pain001-bench.xml', buildFile());
else await main();
