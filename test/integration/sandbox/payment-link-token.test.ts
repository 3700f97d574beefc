// What a payment link relies on (spec §4 "Token contents by action", §8 "Token amount"): a PAYIN_CREATE token limited
// to one payin id and to one amount and currency lets its holder create and read that payin for that money only,
// ask for payment options for that money only, and nothing once it has expired.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, payinBody, startWithClient, type SandboxClient } from './helpers';

let client: SandboxClient;
const LINK_MONEY = { amount: 25, currencyCode: 'EUR' };

beforeAll(async () => {
  client = await startWithClient();
  // A payin of the same merchant, created with a general token: the link's token must not reach it.
  const admin = await client.token();
  expect((await client.request('POST', '/payins/someone-else', { token: admin, body: payinBody({ amount: 25 }) })).status).toBe(201);
});
afterAll(() => client.sandbox.close());

const linkToken = (idPayment: string, extra: Record<string, unknown> = {}) => client.actionToken('PAYIN_CREATE', idPayment, { money: LINK_MONEY, ...extra });
const stored = (idPayin: string) => client.sandbox.state().payins.some((p) => p.idPayin === idPayin);

describe('a PAYIN_CREATE token limited to one payin and one amount', () => {
  it('carries the id and the money in its claims', async () => {
    const claims = decodeJwt(await linkToken('link-claims'));
    expect(claims).toMatchObject({ idPayment: 'link-claims', act: 'PAYIN_CREATE', money: LINK_MONEY });
  });

  it('cannot create or read another payin', async () => {
    const token = await linkToken('link-x');
    const create = await client.request('POST', '/payins/link-y', { token, body: payinBody({ amount: 25 }) });
    expect(create.status).toBe(403);
    expect(errorCode(create)).toBe('OPERATION_NOT_ALLOWED');
    expect(stored('link-y')).toBe(false);
    const read = await client.request('GET', '/payins/someone-else', { token });
    expect(read.status).toBe(403);
    expect(errorCode(read)).toBe('OPERATION_NOT_ALLOWED');
    // An id that starts with its own is another id: the pattern is anchored.
    expect((await client.request('POST', '/payins/link-x2', { token, body: payinBody({ amount: 25 }) })).status).toBe(403);
  });

  it('cannot create its own payin for another amount or in another currency, and nothing is stored', async () => {
    const token = await linkToken('link-money');
    for (const body of [payinBody({ amount: 25.01 }), payinBody({ amount: 24.99 }), { ...payinBody({ amount: 25 }), paymentRequested: { money: { amount: 25, currencyCode: 'GBP' } } }]) {
      const refused = await client.request('POST', '/payins/link-money', { token, body });
      expect(refused.status).toBe(403);
      expect(errorCode(refused)).toBe('MONEY_LIMIT_EXCEEDED');
    }
    expect(stored('link-money')).toBe(false);
    const exact = await client.request('POST', '/payins/link-money', { token, body: payinBody({ amount: 25 }) });
    expect(exact.status).toBe(201);
    const read = await client.request('GET', '/payins/link-money', { token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ paymentRequested: { money: LINK_MONEY } });
    // Created once: the same token cannot create it a second time.
    expect((await client.request('POST', '/payins/link-money', { token, body: payinBody({ amount: 25 }) })).status).toBe(409);
  });

  it('lists payment options for its own money only', async () => {
    const token = await linkToken('link-options');
    const own = await client.request('POST', '/payins/!availablePaymentOptions', { token, body: LINK_MONEY });
    expect(own.status).toBe(200);
    expect(JSON.stringify(own.body)).toContain('VAPAY');
    for (const body of [{ amount: 26, currencyCode: 'EUR' }, { amount: 25, currencyCode: 'USD' }]) {
      const other = await client.request('POST', '/payins/!availablePaymentOptions', { token, body });
      expect(other.status).toBe(403);
      expect(errorCode(other)).toBe('MONEY_LIMIT_EXCEEDED');
    }
  });

  it('allows nothing once it has expired, not even what it allowed before', async () => {
    const token = await linkToken('link-expiring', { validitySecs: 1 });
    expect((await client.request('POST', '/payins/!availablePaymentOptions', { token, body: LINK_MONEY })).status).toBe(200);
    const exp = decodeJwt(token).exp ?? 0;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 50));
    for (const [method, path, body] of [
      ['POST', '/payins/link-expiring', payinBody({ amount: 25 })],
      ['GET', '/payins/link-expiring', undefined],
      ['POST', '/payins/!availablePaymentOptions', LINK_MONEY],
    ] as const) {
      const late = await client.request(method, path, { token, ...(body ? { body } : {}) });
      expect(late.status).toBe(401);
      expect(errorCode(late)).toBe('TOKEN_EXPIRED');
    }
    expect(stored('link-expiring')).toBe(false);
  });
});

describe('how long a token may live', () => {
  it('a token by action may live up to 30 days (a payment link), a general token up to a day', async () => {
    const month = 30 * 86_400;
    const link = decodeJwt(await linkToken('link-month', { validitySecs: month }));
    expect((link.exp ?? 0) - (link.iat ?? 0)).toBe(month);
    await expect(linkToken('link-too-long', { validitySecs: month + 1 })).rejects.toThrow(/400.*at most 2592000/);
    await expect(client.token(['GET /currencies'], { validitySecs: 86_401 })).rejects.toThrow(/400.*at most 86400/);
  });
});
