// A single payout gets the checks a batch gets: the available balance of its currency and the
// profile's per-payout ceiling, enforced in main (payouts service) so the CLI and the UI both stop;
// a payout like one of the profile's last days refused until confirmed;
// and on a LIVE profile the CLI asks before real money leaves (--yes skips it, no terminal refuses).
import axios from 'axios';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliDesk } from '../../../main/cli/deps';
import { buildProgram, loadCliComposition, runCli, type CliIo } from '../../../main/cli/index';
import { createAppContext } from '../../../main/context';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';

let sandbox: SandboxHandle;
const home = mkdtempSync(join(tmpdir(), 'desk-cli-single-'));
const keyStore = new MemoryKeyStore();

async function cli(args: string[], io: Partial<CliIo> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t), ...io } });
  return { code, out, err };
}

const payee = ['--currency', 'EUR', '--account-name', 'Jane Doe', '--account-number', 'DE89370400440532013000', '--operator', 'EU_SEPA', '--email', 'jane@example.com'];
const payoutIds = () => sandbox.state().payouts.map((p) => p.idPayout);

beforeAll(async () => {
  sandbox = await startSandbox();
  expect((await cli(['profiles', 'add', '--name', 'Sandbox EU', '--base-url', sandbox.url, '--merchant-code', 'DEMO-MERCHANT'])).code).toBe(0);
  expect((await cli(['keys', 'generate', '--bits', '2048'])).code).toBe(0);
  const pemFile = join(home, 'public.pem');
  expect((await cli(['keys', 'export-public', '--out', pemFile])).code).toBe(0);
  await axios.post(`${sandbox.url}/_sandbox/merchants/DEMO-MERCHANT/keys`, readFileSync(pemFile, 'utf8'), { headers: { 'Content-Type': 'text/plain' } });
});
afterAll(async () => sandbox.close());

describe('single payout funding and ceiling', () => {
  it('refuses an amount above the available balance of its currency and sends nothing', async () => {
    // The default sandbox merchant holds 100,000.00 EUR.
    const r = await cli(['payouts', 'create', '--amount', '99999999999.00', ...payee]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('not enough funds: EUR short by 99999899999.00 (needs 99999999999.00, available 100000.00)');
    expect(r.err).toContain('nothing was sent');
    expect(payoutIds()).toEqual([]);
  });

  it('sends an amount the balance covers', async () => {
    const r = await cli(['payouts', 'create', '--amount', '10.00', ...payee]);
    expect(r.code).toBe(0);
    expect(payoutIds()).toHaveLength(1);
  });

  it('refuses an amount above the per-payout ceiling, said in the currency of the payout', async () => {
    const ctx = createAppContext({ home, keyStore });
    ctx.profiles.update('sandbox-eu', { maxAmountMinor: 50_000 });
    ctx.close();
    const r = await cli(['payouts', 'create', '--amount', '500.01', ...payee]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("per-payout maximum of 500.00 EUR");
    // The ceiling counts in each currency's own minor units: JPY has none, so it is 50,000 yen.
    const yen = await cli(['payouts', 'create', '--amount', '50001', '--currency', 'JPY', '--account-name', 'Jane Doe', '--account-number', '1234567', '--operator', 'JP_ZENGIN', '--email', 'jane@example.com']);
    expect(yen.code).toBe(1);
    expect(yen.err).toContain('per-payout maximum of 50000 JPY');
    expect(payoutIds()).toHaveLength(1);
  });

  it('refuses in the service itself, not only in the CLI: payouts:create without a validate first', async () => {
    const ctx = createAppContext({ home, keyStore });
    ctx.profiles.update('sandbox-eu', { maxAmountMinor: null });
    ctx.close();
    // runCli loads the CLI's composition before a command runs; deps used directly need it loaded first.
    await loadCliComposition();
    const built = await buildProgram({ keyStore, env: { PAYOUT_DESK_HOME: home }, io: { stdout: () => undefined, stderr: () => undefined } });
    try {
      const desk = built.deps.desk();
      const error = await desk
        .call('payouts', 'create', { idPayout: 'too-much-1', amount: '200000.00', currencyCode: 'EUR', accountName: 'Jane Doe', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'jane@example.com' })
        .catch((e: unknown) => e as { code: string; message: string });
      expect(error).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
      expect(await (await desk.runtime.journalFor('sandbox-eu')).getPayment('payout', 'too-much-1')).toBeUndefined();
    } finally {
      await built.dispose();
    }
    expect(payoutIds()).toHaveLength(1);
  });
});

describe('possible duplicates of a single payout', () => {
  const journalOf = async <T>(read: (desk: CliDesk) => Promise<T>): Promise<T> => {
    await loadCliComposition();
    const built = await buildProgram({ keyStore, env: { PAYOUT_DESK_HOME: home }, io: { stdout: () => undefined, stderr: () => undefined } });
    try {
      return await read(built.deps.desk());
    } finally {
      await built.dispose();
    }
  };

  it('refuses the same amount and currency to the same account within the window, names the earlier payout, and sends nothing', async () => {
    const [first] = payoutIds();
    const r = await cli(['payouts', 'create', '--amount', '10.00', ...payee]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`possible duplicate of payout ${first} of ${new Date().toISOString().slice(0, 10)}: 10.00 EUR to the same account …3000`);
    expect(r.err).toContain('run the command again with --confirm-duplicate');
    expect(payoutIds()).toEqual([first]);
    // The service refuses too, whoever calls it, and journals nothing.
    const refused = await journalOf(async (desk) => {
      const error = await desk
        .call('payouts', 'create', { idPayout: 'dup-1', amount: '10.00', currencyCode: 'EUR', accountName: 'Jane Doe', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'jane@example.com' })
        .catch((e: unknown) => e as { code: string; message: string });
      return { error, kept: await (await desk.runtime.journalFor('sandbox-eu')).getPayment('payout', 'dup-1') };
    });
    expect(refused.error).toMatchObject({ code: 'POSSIBLE_DUPLICATE' });
    expect(refused.kept).toBeUndefined();
    // Another amount is another payment.
    expect((await cli(['payouts', 'create', '--amount', '10.01', ...payee])).code).toBe(0);
    expect(payoutIds()).toHaveLength(2);
  });

  it('sends it once the person confirms it is a separate payment, and audits who confirmed what', async () => {
    const [first] = payoutIds();
    const r = await cli(['payouts', 'create', '--amount', '10.00', '--confirm-duplicate', ...payee]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(payoutIds()).toHaveLength(3);
    const second = payoutIds()[2]!;
    const entries = await journalOf(async (desk) => (await desk.runtime.journalFor('sandbox-eu')).listAudit());
    expect(entries.find((e) => e.action === 'payout.possible-duplicate-confirmed')).toMatchObject({ subject: second, details: { like: first, windowDays: 30 } });
  });

  it('checks only as far back as the profile says, and not at all at 0 days', async () => {
    const r = await cli(['profiles', 'edit', '--repeat-window', '0']);
    expect(r.code).toBe(0);
    expect((await cli(['payouts', 'create', '--amount', '10.00', ...payee])).code).toBe(0);
    expect(payoutIds()).toHaveLength(4);
    expect((await cli(['profiles', 'edit', '--repeat-window', '30'])).code).toBe(0);
    expect((await cli(['payouts', 'create', '--amount', '10.00', ...payee])).code).toBe(1);
    expect(payoutIds()).toHaveLength(4);
  });
});

describe('LIVE confirmation', () => {
  beforeAll(async () => {
    // Never reached: every case here stops before anything is sent.
    const r = await cli(['profiles', 'add', '--name', 'Shop Live', '--base-url', 'https://127.0.0.1:9', '--merchant-code', 'LIVE-M', '--environment', 'LIVE']);
    expect(r.code).toBe(0);
    expect((await cli(['--profile', 'shop-live', 'keys', 'generate', '--bits', '2048'])).code).toBe(0);
  });

  it('refuses without --yes when there is no terminal to ask on, and says to pass --yes', async () => {
    const r = await cli(['--profile', 'shop-live', 'payouts', 'create', '--amount', '10.00', ...payee], { ask: async () => null });
    expect(r.code).toBe(2);
    expect(r.err).toContain('LIVE profile');
    expect(r.err).toContain('--yes');
    expect(r.err).toContain('nothing was sent');
  });

  it('asks, and sends nothing when the answer is no', async () => {
    let asked = '';
    const r = await cli(['--profile', 'shop-live', 'payouts', 'create', '--amount', '10.00', ...payee], { ask: async (q) => ((asked = q), 'n') });
    expect(asked).toContain('LIVE profile shop-live');
    expect(asked).toContain('10.00 EUR to Jane Doe');
    expect(r.code).toBe(1);
    expect(r.err).toContain('Not confirmed; nothing was sent');
  });

  it('does not ask on a TEST profile', async () => {
    let asked = false;
    const r = await cli(['--profile', 'sandbox-eu', 'payouts', 'create', '--amount', '1.00', ...payee], { ask: async () => ((asked = true), null) });
    expect(r.code).toBe(0);
    expect(asked).toBe(false);
  });
});
