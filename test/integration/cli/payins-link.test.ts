// `payins link` and `payins links` against the sandbox, over the same desk services as the screen: the link is
// printed once with the text for the customer, its token lets the customer create exactly that payin, and the
// list says where each link stands.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentLinkIssued, PaymentLinkView } from '../../../contract/api';
import { runCli } from '../../../main/cli/index';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { addSandboxProfile } from '../support/cli-sandbox-profile';

let sandbox: SandboxHandle;
const home = mkdtempSync(join(tmpdir(), 'desk-cli-link-'));
const keyStore = new MemoryKeyStore();

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}

async function json<T>(...args: string[]): Promise<T> {
  const r = await cli('--json', ...args);
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.err}${r.out}`);
  return JSON.parse(r.out) as T;
}

/** The customer creating the linked payin with the token alone (the merchant's rate limit counts its calls too). */
async function customerCreates(idPayin: string, token: string, amount: number): Promise<number> {
  for (;;) {
    const status = await createOnce(idPayin, token, amount);
    if (status !== 429) return status;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function createOnce(idPayin: string, token: string, amount: number): Promise<number> {
  const response = await fetch(`${sandbox.url}/payins/${idPayin}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'x-api-version': '2', 'content-type': 'application/json' },
    body: JSON.stringify({
      paymentRequested: { money: { amount, currencyCode: 'EUR' } },
      paymentMethod: { paymentMethodCode: 'VAPAY', paymentOperatorCode: 'VAPAY_EU', account: { accountName: 'Dana Doe', accountNumber: 'NL91ABNA0417164300' }, emailAddress: 'dana@example.com' },
    }),
  });
  return response.status;
}

beforeAll(async () => {
  sandbox = await startSandbox();
  await addSandboxProfile(cli, home, keyStore, sandbox.url);
});
afterAll(() => sandbox.close());

describe('payins link', () => {
  it('prints the link once: the text for the customer with the payin id, the token, the amount and the expiry', async () => {
    const r = await cli('payins', 'link', '--amount', '25.00', '--currency', 'eur', '--valid-hours', '72', '--reference', 'INV-9');
    expect(r).toMatchObject({ code: 0, err: '' });
    const id = /Payment link for 25\.00 EUR: payin (\S+), valid until (\S+)\./.exec(r.out);
    expect(id?.[1]).toMatch(/^[0-9a-f-]{36}$/);
    const hours = (Date.parse(id?.[2] ?? '') - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(71.9);
    expect(hours).toBeLessThanOrEqual(72);
    // The token once, on the share text's token line.
    expect(r.out.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g)).toHaveLength(1);
    expect(r.out).toMatch(/^Token: eyJ/m);
    expect(r.out).toContain('Reference: INV-9');
    expect(r.out).toContain(`Payin id: ${id?.[1]}`);
    expect(r.out).toContain(`Gateway: ${sandbox.url} (X-API-Version: 2)`);
  });

  it('its token creates that payin for that amount only; the list follows it', async () => {
    const link = await json<PaymentLinkIssued>('payins', 'link', '--amount', '12.34', '--currency', 'EUR');
    expect(link).toMatchObject({ money: { amount: '12.34', currencyCode: 'EUR' }, state: 'waiting', reference: null });
    expect((Date.parse(link.expiresAt) - Date.now()) / 3_600_000).toBeGreaterThan(71.9); // 72 hours by default
    const waiting = await cli('payins', 'links');
    expect(waiting.out).toMatch(new RegExp(`${link.idPayin}\\s+12\\.34 EUR\\s+Waiting for the customer`));

    expect(await customerCreates(link.idPayin, link.token, 12.35)).toBe(403);
    expect(await customerCreates(link.idPayin, link.token, 12.34)).toBe(201);
    const listed = await json<PaymentLinkView[]>('payins', 'links');
    expect(listed.find((l) => l.idPayin === link.idPayin)).toMatchObject({ state: 'paying', status: 'PENDING' });
    await fetch(`${sandbox.url}/_sandbox/payins/${link.idPayin}/pay`, { method: 'POST' });
    const paid = await cli('payins', 'get', link.idPayin);
    expect(paid.out).toContain(`Payin ${link.idPayin}  SUCCESS (final)`);
    expect((await cli('payins', 'links')).out).toMatch(new RegExp(`${link.idPayin}\\s+12\\.34 EUR\\s+Paid`));
  });

  it('refuses a validity outside 1 to 720 hours and an amount the currency cannot carry, saying why', async () => {
    const tooLong = await cli('payins', 'link', '--amount', '5.00', '--currency', 'EUR', '--valid-hours', '721');
    expect(tooLong.code).toBe(2);
    expect(tooLong.err).toContain('must be from 1 to 720 hours (30 days)');
    expect((await cli('payins', 'link', '--amount', '5.00', '--currency', 'EUR', '--valid-hours', '0')).code).toBe(2);
    const precise = await cli('payins', 'link', '--amount', '5.001', '--currency', 'EUR');
    expect(precise.code).toBe(1);
    expect(precise.err).toMatch(/amount: .*decimals/);
    expect((await cli('payins', 'link', '--amount', '5', '--currency', 'JPY')).code).toBe(0);
  });
});
