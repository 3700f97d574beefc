// Sandbox-only routes refuse bad input loudly; fee rules clamp; KWD's three decimals survive the round trip.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT, errorCode, startWithClient, waitFor, type SandboxClient } from './helpers';

let client: SandboxClient;
let token: string;

beforeAll(async () => {
  client = await startWithClient({
    merchants: [{ code: MERCHANT, channelName: 'Demo Store', balancesMinor: { EUR: 10_000_000, KWD: 10_000_000 } }],
    fees: {
      EUR: { fixedMinor: 0, basisPoints: 100, minMinor: 50, maxMinor: 1_000 },
      KWD: { fixedMinor: 100, basisPoints: 0 },
    },
  });
  token = await client.token();
});
afterAll(() => client.sandbox.close());

const admin = (path: string, init: RequestInit = {}) => fetch(`${client.sandbox.url}${path}`, init);

describe('sandbox-only routes', () => {
  it('need no version header or token, and unknown ones are 404', async () => {
    expect((await admin('/_sandbox/state')).status).toBe(200);
    const unknown = await admin('/_sandbox/reset', { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('refuses a key that is not an RSA public key in PEM', async () => {
    const response = await admin(`/_sandbox/merchants/${MERCHANT}/keys`, { method: 'POST', body: 'hello' });
    expect(response.status).toBe(400);
    const unknownMerchant = await admin('/_sandbox/merchants/NOBODY/keys', {
      method: 'POST',
      body: client.keys.publicPem,
    });
    expect(unknownMerchant.status).toBe(404);
  });

  it('refuses paying an unknown payin and funding with bad input', async () => {
    expect((await admin('/_sandbox/payins/ghost-1/pay', { method: 'POST' })).status).toBe(404);
    const json = { 'content-type': 'application/json' };
    const tooPrecise = await admin(`/_sandbox/merchants/${MERCHANT}/balances`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ currencyCode: 'EUR', amount: 1.001 }),
    });
    expect(tooPrecise.status).toBe(400);
    const unknownCurrency = await admin(`/_sandbox/merchants/${MERCHANT}/balances`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ currencyCode: 'XXX', amount: 1 }),
    });
    expect(unknownCurrency.status).toBe(400);
  });
});

describe('fee rules', () => {
  const payout = (amount: number, currencyCode: string, operator: string) => ({
    paymentRequested: { money: { amount, currencyCode } },
    paymentMethod: {
      paymentMethodCode: 'BANK_TRANSFER',
      paymentOperatorCode: operator,
      account: { accountName: 'Fee Test', accountNumber: '12345678' },
      emailAddress: 'fees@example.com',
    },
  });
  const feeOf = async (id: string) =>
    ((await client.request('GET', `/payouts/${id}`, { token })).body as { fee: { amount: number } }).fee.amount;

  it.each([
    ['the minimum', 10, 0.5],
    ['the proportional part', 200, 2],
    ['the maximum', 5_000, 10],
  ])('clamps the EUR fee to %s', async (_label, amount, fee) => {
    const id = `fee-${amount}`;
    expect((await client.request('POST', `/payouts/${id}`, { token, body: payout(amount, 'EUR', 'EU_SEPA') })).status).toBe(201);
    expect(await feeOf(id)).toBe(fee);
  });

  it('keeps three decimals for KWD and debits amount + fee exactly', async () => {
    const before = client.sandbox.state().balances[MERCHANT]?.KWD?.availableMinor ?? 0;
    const response = await client.request('POST', '/payouts/kwd-1', { token, body: payout(12.345, 'KWD', 'KW_KNET') });
    expect(response.text).toContain('"amount":12.345');
    await waitFor(() => client.sandbox.state().payouts.find((p) => p.idPayout === 'kwd-1')?.status === 'SUCCESS');
    expect(await feeOf('kwd-1')).toBe(0.1);
    expect(client.sandbox.state().balances[MERCHANT]?.KWD?.availableMinor).toBe(before - 12_445);
    const tooPrecise = await client.request('POST', '/payouts/kwd-2', { token, body: payout(1.0001, 'KWD', 'KW_KNET') });
    expect(errorCode(tooPrecise)).toBe('INVALID_AMOUNT');
  });
});
