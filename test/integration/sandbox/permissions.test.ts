// Token privileges: anchored operation patterns, action tokens (spec §4 "Token contents by action"), money limit.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, payinBody, payoutBody, startWithClient, type SandboxClient } from './helpers';

let client: SandboxClient;
let admin: string;

beforeAll(async () => {
  client = await startWithClient();
  admin = await client.token();
  expect((await client.request('POST', '/payouts/perm-p1', { token: admin, body: payoutBody() })).status).toBe(201);
  expect((await client.request('POST', '/payins/other-payin', { token: admin, body: payinBody() })).status).toBe(201);
});
afterAll(() => client.sandbox.close());

describe('operations (spec §4 POST /auth-tokens rules)', () => {
  it('a token listing only GET on one payout permits only that read', async () => {
    const token = await client.token(['GET /payouts/perm-p1']);
    expect((await client.request('GET', '/payouts/perm-p1', { token })).status).toBe(200);
    const longer = await client.request('GET', '/payouts/perm-p10', { token });
    expect(longer.status).toBe(403);
    expect(errorCode(longer)).toBe('OPERATION_NOT_ALLOWED');
    expect((await client.request('POST', '/payouts/perm-p1', { token, body: payoutBody() })).status).toBe(403);
    expect((await client.request('GET', '/currencies', { token })).status).toBe(403);
  });

  it('patterns are anchored on the whole "METHOD /path": a prefix does not grant more', async () => {
    const token = await client.token(['GET /payouts']);
    expect((await client.request('GET', '/payouts/perm-p1', { token })).status).toBe(403);
  });

  it('a regex grants every matching id: POST /payins/.* creates any payin, GET /payins/.* reads any', async () => {
    const token = await client.token(['POST /payins/.*', 'GET /payins/.*']);
    expect((await client.request('POST', '/payins/regex-any-1', { token, body: payinBody() })).status).toBe(201);
    expect((await client.request('GET', '/payins/regex-any-1', { token })).status).toBe(200);
    expect((await client.request('GET', '/payouts/perm-p1', { token })).status).toBe(403);
  });

  it('the query string is not part of the matched operation', async () => {
    const token = await client.token(['GET /balances']);
    expect((await client.request('GET', '/balances?currencies=EUR', { token })).status).toBe(200);
  });
});

describe('action tokens (POST /auth-tokens-by-action)', () => {
  it('PAYIN_CREATE allows options, create and read of its own id only', async () => {
    const token = await client.actionToken('PAYIN_CREATE', 'own-payin-1');
    const claims = decodeJwt(token);
    expect(claims.idPayment).toBe('own-payin-1');
    const options = await client.request('POST', '/payins/!availablePaymentOptions', {
      token,
      body: { amount: 42.1, currencyCode: 'EUR' },
    });
    expect(options.status).toBe(200);
    expect((await client.request('POST', '/payins/own-payin-1', { token, body: payinBody() })).status).toBe(201);
    expect((await client.request('GET', '/payins/own-payin-1', { token })).status).toBe(200);
    expect((await client.request('POST', '/payins/own-payin-2', { token, body: payinBody() })).status).toBe(403);
    expect((await client.request('GET', '/payins/other-payin', { token })).status).toBe(403);
    expect((await client.request('GET', '/payouts/perm-p1', { token })).status).toBe(403);
    expect((await client.request('GET', '/payins/own-payin-1/account-data', { token })).status).toBe(403);
  });

  it('PAYIN_INFO allows GET /payins/{idPayment} only', async () => {
    const token = await client.actionToken('PAYIN_INFO', 'other-payin');
    expect((await client.request('GET', '/payins/other-payin', { token })).status).toBe(200);
    expect((await client.request('POST', '/payins/other-payin', { token, body: payinBody() })).status).toBe(403);
    const options = await client.request('POST', '/payins/!availablePaymentOptions', {
      token,
      body: { amount: 1, currencyCode: 'EUR' },
    });
    expect(options.status).toBe(403);
    expect((await client.request('GET', '/payins/own-payin-1', { token })).status).toBe(403);
  });

  it('refuses an unknown action and a bad idPayment with 400', async () => {
    await expect(client.actionToken('PAYIN_REFUND' as 'PAYIN_INFO', 'x1')).rejects.toThrow(/400/);
    await expect(client.actionToken('PAYIN_INFO', 'bad id!')).rejects.toThrow(/400/);
  });
});

describe('money limit (spec §8 "Token amount")', () => {
  it('a token limited to money permits that amount and currency only', async () => {
    const money = { amount: 42.1, currencyCode: 'EUR' };
    const token = await client.actionToken('PAYIN_CREATE', 'money-payin-1', { money });
    const sameOptions = await client.request('POST', '/payins/!availablePaymentOptions', { token, body: money });
    expect(sameOptions.status).toBe(200);
    const otherOptions = await client.request('POST', '/payins/!availablePaymentOptions', {
      token,
      body: { amount: 42.1, currencyCode: 'GBP' },
    });
    expect(otherOptions.status).toBe(403);
    expect(errorCode(otherOptions)).toBe('MONEY_LIMIT_EXCEEDED');
    const more = await client.request('POST', '/payins/money-payin-1', { token, body: payinBody({ amount: 42.11 }) });
    expect(more.status).toBe(403);
    expect(errorCode(more)).toBe('MONEY_LIMIT_EXCEEDED');
    expect(client.sandbox.state().payins.some((p) => p.idPayin === 'money-payin-1')).toBe(false);
    const exact = await client.request('POST', '/payins/money-payin-1', { token, body: payinBody({ amount: 42.1 }) });
    expect(exact.status).toBe(201);
  });

  it('applies the money limit to payouts created with a general token', async () => {
    const token = await client.token(['POST /payouts/.*'], { money: { amount: 10, currencyCode: 'EUR' } });
    const over = await client.request('POST', '/payouts/money-po-1', { token, body: payoutBody({ amount: 10.01 }) });
    expect(over.status).toBe(403);
    const exact = await client.request('POST', '/payouts/money-po-1', { token, body: payoutBody({ amount: 10 }) });
    expect(exact.status).toBe(201);
  });
});
