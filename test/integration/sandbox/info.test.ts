// Merchant info, balances and code lists (spec §4), and funding through the sandbox-only route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT, SandboxClient, errorCode, startWithClient } from './helpers';

let client: SandboxClient;
let token: string;

beforeAll(async () => {
  client = await startWithClient({
    merchants: [
      { code: MERCHANT, channelName: 'Demo Store', balancesMinor: { EUR: 125_050, KWD: 1_234_567 } },
      { code: 'OTHER', channelName: 'Other Shop', balancesMinor: { EUR: 1 } },
    ],
  });
  token = await client.token();
});
afterAll(() => client.sandbox.close());

describe('merchant info', () => {
  it.each(['GET', 'POST'])('%s /merchant-info answers channelInfo.name', async (method) => {
    const response = await client.request(method, '/merchant-info', { token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ channelInfo: { name: 'Demo Store' } });
  });

  it('POST /merchant-info tolerates an empty JSON object body', async () => {
    const response = await client.request('POST', '/merchant-info', { token, body: {} });
    expect(response.status).toBe(200);
  });
});

describe('GET /balances', () => {
  it('answers the requested currencies as JSON numbers, ignoring unknown codes', async () => {
    const response = await client.request('GET', '/balances?currencies=EUR,XXX,KWD,nonsense', { token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [
        { currencyCode: 'EUR', available: 1250.5, reserved: 0 },
        { currencyCode: 'KWD', available: 1234.567, reserved: 0 },
      ],
    });
  });

  it('answers every currency when none is asked for; a currency without funds shows 0', async () => {
    const response = await client.request('GET', '/balances', { token });
    const codes = (response.body as { data: { currencyCode: string; available: number }[] }).data;
    expect(codes.map((c) => c.currencyCode)).toEqual(['EUR', 'USD', 'GBP', 'JPY', 'KWD']);
    expect(codes.find((c) => c.currencyCode === 'USD')?.available).toBe(0);
  });

  it('reflects funding through the sandbox route and the handle', async () => {
    const funded = await fetch(`${client.sandbox.url}/_sandbox/merchants/${MERCHANT}/balances`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ currencyCode: 'USD', amount: 99.99 }),
    });
    expect(funded.status).toBe(200);
    client.sandbox.fund(MERCHANT, 'USD', 1);
    const response = await client.request('GET', '/balances?currencies=USD', { token });
    expect(response.body).toEqual({ data: [{ currencyCode: 'USD', available: 100, reserved: 0 }] });
  });

  it('refuses funding that would make a balance negative', async () => {
    expect(() => client.sandbox.fund(MERCHANT, 'EUR', -10_000_000)).toThrow(/negative/);
    expect(() => client.sandbox.fund(MERCHANT, 'XYZ', 100)).toThrow(/XYZ/);
    expect(() => client.sandbox.fund('NOBODY', 'EUR', 100)).toThrow(/NOBODY/);
  });
});

describe('code lists', () => {
  it('GET /currencies lists code, name and decimals', async () => {
    const response = await client.request('GET', '/currencies', { token });
    const data = (response.body as { data: unknown[] }).data;
    expect(data).toContainEqual({ code: 'JPY', name: 'Yen', decimals: 0 });
    expect(data).toContainEqual({ code: 'KWD', name: 'Kuwaiti Dinar', decimals: 3 });
    expect(data).toHaveLength(5);
  });

  it('GET /payment-operators lists operators with method and currencies', async () => {
    const response = await client.request('GET', '/payment-operators', { token });
    const data = (response.body as { data: unknown[] }).data;
    expect(data).toContainEqual({
      code: 'EU_SEPA',
      name: 'SEPA Credit Transfer',
      paymentMethodCode: 'BANK_TRANSFER',
      currencyCodes: ['EUR'],
    });
    expect(data).toContainEqual(expect.objectContaining({ code: 'VAPAY_EU', paymentMethodCode: 'VAPAY' }));
  });
});

describe('merchants are kept apart', () => {
  it('a merchant cannot read another merchant’s payout (404, not revealed)', async () => {
    const created = await client.request('POST', '/payouts/mine-1', {
      token,
      body: {
        paymentRequested: { money: { amount: 1, currencyCode: 'EUR' } },
        paymentMethod: {
          paymentMethodCode: 'BANK_TRANSFER',
          paymentOperatorCode: 'EU_SEPA',
          account: { accountName: 'A', accountNumber: '123' },
          emailAddress: 'a@example.com',
        },
      },
    });
    expect(created.status).toBe(201);
    const register = await fetch(`${client.sandbox.url}/_sandbox/merchants/OTHER/keys`, {
      method: 'POST',
      body: client.keys.publicPem,
    });
    expect(register.status).toBe(201);
    const otherClient = new SandboxClient(client.sandbox, client.keys, 'OTHER');
    const otherToken = await otherClient.token();
    const response = await client.request('GET', '/payouts/mine-1', { token: otherToken });
    expect(response.status).toBe(404);
    expect(errorCode(response)).toBe('NOT_FOUND');
    const info = await client.request('GET', '/merchant-info', { token: otherToken });
    expect(info.body).toEqual({ channelInfo: { name: 'Other Shop' } });
  });
});
