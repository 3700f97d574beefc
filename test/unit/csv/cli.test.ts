// `batch template` and `batch validate` through commander, as main/cli/index.ts wires them.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBatchCsvCommands, type BatchCsvCliDeps } from '../../../main/cli/batch-csv';

const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/csv/${name}`, import.meta.url));

async function run(args: string[], extra: Partial<BatchCsvCliDeps> = {}): Promise<{ out: string; err: string; code: number }> {
  const captured = { out: '', err: '', code: 0 };
  const program = new Command('payout-desk').option('--json', 'JSON output').exitOverride();
  const batch = program.command('batch');
  registerBatchCsvCommands(batch, {
    stdout: (t) => (captured.out += t),
    stderr: (t) => (captured.err += t),
    setExitCode: (c) => (captured.code = c),
    ...extra,
  });
  await program.parseAsync(['node', 'payout-desk', ...args]);
  return captured;
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'csv-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('batch template', () => {
  it('prints the template, or writes it to --out without overwriting', async () => {
    const printed = await run(['batch', 'template']);
    expect(printed.out.split('\r\n')[0]).toMatch(/^idPayout,amount,currencyCode,/);
    const out = join(dir, 'template.csv');
    expect((await run(['batch', 'template', '--out', out])).code).toBe(0);
    expect(await readFile(out, 'utf8')).toBe(printed.out);
    const again = await run(['batch', 'template', '--out', out]);
    expect([again.code, again.err]).toEqual([1, `error: ${out} exists; use --force to overwrite it\n`]);
  });
});

describe('batch validate', () => {
  it('reports counts, totals and each issue with row and column; exit 1 when a row is invalid', async () => {
    const r = await run(['batch', 'validate', fixture('excel-de-semicolon.csv')]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('excel-de-semicolon.csv: 4 rows, 3 valid, 1 invalid, 0 warnings');
    expect(r.out).toContain('delimiter ";", decimal separator ","');
    expect(r.out).toMatch(/EUR +1248\.05 {2}\(3 payouts\)/);
    expect(r.out).toContain('row 5, column "Betrag": AMOUNT_AMBIGUOUS');
  });

  it('without a profile says the file alone was checked and names each check it skipped', async () => {
    const r = await run(['batch', 'validate', fixture('windows-1252.csv')]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('No invalid rows in the file itself; the profile checks below did not run.');
    expect(r.out).toContain('the currencies and operators the gateway offers');
    expect(r.out).toContain("the profile's per-payout ceiling");
    expect(r.out).toContain('the available balances');
    expect(r.out).not.toContain('All rows are valid');
  });

  it('exit 0 for a clean file; --json (local or global) prints the machine report', async () => {
    for (const args of [['batch', 'validate', fixture('windows-1252.csv'), '--json'], ['--json', 'batch', 'validate', fixture('windows-1252.csv')]]) {
      const r = await run(args);
      expect(r.code).toBe(0);
      const body = JSON.parse(r.out) as { ok: boolean; encoding: string; totals: unknown };
      expect(body.ok).toBe(true);
      expect(body.encoding).toBe('windows-1252');
      expect(body.totals).toEqual([{ currencyCode: 'EUR', amountMinor: 60000, count: 3, amount: '600.00' }]);
    }
  });

  it('uses the profile options when given (operators) and reports file errors with exit 2', async () => {
    const withOperators = await run(['batch', 'validate', fixture('excel-utf8-bom-crlf.csv')], {
      importOptions: () => ({ operators: [{ code: 'EU_SEPA', currencyCodes: ['EUR'] }] }),
    });
    expect(withOperators.code).toBe(1);
    expect(withOperators.out).toContain('row 4, column "Operator": OPERATOR_UNKNOWN');

    const broken = await run(['batch', 'validate', fixture('unterminated-quote.csv')]);
    expect(broken.code).toBe(2);
    expect(broken.err).toContain('Row 3 opens a quoted value');
    // One error line, as every command writes it: `error: ` first.
    expect(broken.err).toMatch(/^error: .*unterminated-quote\.csv: Row 3 opens a quoted value/);
    const missing = await run(['batch', 'validate', join(dir, 'nope.csv'), '--json']);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.out)).toMatchObject({ ok: false, error: { code: 'READ_FAILED' } });
  });

  it('--decimal-comma reads a comma-delimited file with decimal commas', async () => {
    const file = join(dir, 'comma.csv');
    await writeFile(file, 'amount,currency,name,iban,operator,email\n"12,50",EUR,Jane,DE89370400440532013000,EU_SEPA,j@example.com\n');
    expect((await run(['batch', 'validate', file])).code).toBe(1);
    const r = await run(['batch', 'validate', file, '--decimal-comma', '--json']);
    expect(JSON.parse(r.out)).toMatchObject({ ok: true, totals: [{ amountMinor: 1250 }] });
  });
});
