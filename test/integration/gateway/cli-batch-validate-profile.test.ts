// `batch validate` runs what `batch submit` runs when there is a profile (the gateway's currencies and
// operators, the ceiling, the journal, the balances), and says which checks it skipped when there is
// none or the gateway cannot be reached. A file with XYZ, an unknown operator and EU_SEPA paying USD was
// "all valid" until submit.
import axios from 'axios';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';

let sandbox: SandboxHandle;
const home = mkdtempSync(join(tmpdir(), 'desk-cli-bval-'));
const keyStore = new MemoryKeyStore();

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}

const header = 'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress,callbackUrl,reference';
const csv = (name: string, rows: string[]) => {
  const path = join(home, name);
  writeFileSync(path, `${[header, ...rows].join('\r\n')}\r\n`);
  return path;
};
const gatewayWrong = csv('gateway-wrong.csv', [
  'gw-1,10.00,XYZ,Ann One,DE02120300000000202051,EU_SEPA,BANK_TRANSFER,ann@example.com,,',
  'gw-2,10.00,EUR,Bob Two,DE02100500000054540402,NOPE_OP,BANK_TRANSFER,bob@example.com,,',
  'gw-3,10.00,USD,Cy Three,US123456789,EU_SEPA,BANK_TRANSFER,cy@example.com,,',
]);

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());

describe('batch validate', () => {
  it('without a profile: checks the file alone and lists every check it skipped', async () => {
    const r = await cli('batch', 'validate', gatewayWrong);
    expect(r.code).toBe(0);
    expect(r.out).toContain('No invalid rows in the file itself; the profile checks below did not run.');
    expect(r.out).toContain('Skipped, as there is no profile to check against:');
    expect(r.out).toContain('the currencies and operators the gateway offers');
    expect(r.out).toContain('the journal (ids already used');
    expect(r.out).toContain('Pass --profile <id>');
    expect(r.out).not.toContain('All rows are valid');
    const json = JSON.parse((await cli('--json', 'batch', 'validate', gatewayWrong)).out) as { profile: null; skippedChecks: string[] };
    expect(json.profile).toBeNull();
    expect(json.skippedChecks).toHaveLength(5);
    expect(json.skippedChecks.at(-1)).toMatch(/^the release date the rows ask for/);
  });

  it('with the current profile: the gateway refuses XYZ, an unknown operator and EU_SEPA paying USD, before submit', async () => {
    expect((await cli('profiles', 'add', '--name', 'Sandbox', '--base-url', sandbox.url, '--merchant-code', 'DEMO-MERCHANT', '--max-amount-minor', '100000')).code).toBe(0);
    expect((await cli('keys', 'generate', '--bits', '2048')).code).toBe(0);
    const pemFile = join(home, 'public.pem');
    expect((await cli('keys', 'export-public', '--out', pemFile)).code).toBe(0);
    await axios.post(`${sandbox.url}/_sandbox/merchants/DEMO-MERCHANT/keys`, readFileSync(pemFile, 'utf8'), { headers: { 'Content-Type': 'text/plain' } });

    const r = await cli('batch', 'validate', gatewayWrong);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`Checked against profile sandbox (${sandbox.url})`);
    expect(r.out).toContain('row 2, column "currencyCode": CURRENCY_UNKNOWN');
    expect(r.out).toContain('row 3, column "paymentOperatorCode": OPERATOR_UNKNOWN');
    expect(r.out).toContain('row 4, column "paymentOperatorCode": OPERATOR_CURRENCY');
    expect(r.out).not.toContain('Not checked');
    expect(r.out).toMatch(/Checked against profile sandbox \([^)]*\): the gateway's currencies and operators, the per-payout ceiling \([^)]*\), the journal, the balances\./);
  });

  it('runs the ceiling, the journal and the balances as submit does', async () => {
    // An id the journal already holds (sent once through submit).
    const first = csv('first.csv', ['used-1,5.00,EUR,Ann One,DE02120300000000202051,EU_SEPA,BANK_TRANSFER,ann@example.com,,']);
    expect((await cli('batch', 'submit', first, '--no-wait')).code).not.toBe(1);
    const file = csv('mixed.csv', [
      'used-1,5.00,EUR,Ann One,DE02120300000000202051,EU_SEPA,BANK_TRANSFER,ann@example.com,,',
      'big-1,1000.01,EUR,Bob Two,DE02100500000054540402,EU_SEPA,BANK_TRANSFER,bob@example.com,,',
    ]);
    const r = await cli('batch', 'validate', file);
    expect(r.code).toBe(1);
    expect(r.out).toContain('row 2, column "idPayout": ID_EXISTS');
    expect(r.out).toMatch(/row 3, column "amount": AMOUNT_\w+/);

    // No ceiling now, but more than the ~100,000.00 EUR the merchant holds (less the payout above and its fee).
    expect((await cli('profiles', 'edit', '--max-amount-minor', 'none')).code).toBe(0);
    const rich = csv('rich.csv', ['rich-1,150000.00,EUR,Bob Two,DE02100500000054540402,EU_SEPA,BANK_TRANSFER,bob@example.com,,']);
    const funded = await cli('batch', 'validate', rich);
    expect(funded.code).toBe(1);
    // The payout above may or may not have left yet (--no-wait): the shortfall is whatever the balance leaves.
    const shortfall = /EUR +150000\.00 {2}\(1 payout\) {2}SHORT by (\d+)\.(\d\d) \(available (\d+)\.(\d\d)\)/.exec(funded.out);
    expect(shortfall, funded.out).not.toBeNull();
    const cents = (units: string, fraction: string) => Number(units) * 100 + Number(fraction);
    const [short, available] = [cents(shortfall![1]!, shortfall![2]!), cents(shortfall![3]!, shortfall![4]!)];
    expect(short + available).toBe(15_000_000);
    expect(available).toBeLessThanOrEqual(10_000_000);
    expect(funded.out).toContain('EUR is not funded: submit refuses it');
  });

  it('says which checks it could not run when the gateway does not answer', async () => {
    await sandbox.close();
    const ok = csv('ok.csv', ['off-1,5.00,EUR,Ann One,DE02120300000000202051,EU_SEPA,BANK_TRANSFER,ann@example.com,,']);
    const r = await cli('batch', 'validate', ok);
    expect(r.out).toContain('Not checked:');
    expect(r.out).toContain(`the currencies and operators ${sandbox.url} offers (not reachable`);
    // It does not claim the balances or the gateway's lists were checked, and labels the figures as the last known.
    expect(r.out).toContain('the available balances (not read now:');
    expect(r.out).toMatch(/Checked against profile sandbox \([^)]*\): the per-payout ceiling \(none set\), the journal\.\n/);
    expect(r.out).toContain('Totals of the valid rows against the last known balance (not read now):');
    expect(r.out).not.toContain('against the available balance:');
    sandbox = await startSandbox();
  });
});
