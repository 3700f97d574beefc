// The token request is signed over exactly the bytes that are sent, checked by two independent
// verifiers (node:crypto and the openssl command), and every call carries the interface's headers.
import { execFileSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOperations } from '../../../main/gateway/token-manager';
import { FakeGateway, clientFixture, tokenRoute, type ClientFixture } from './fake-gateway';

const gw = new FakeGateway()
  .on('POST /auth-tokens', tokenRoute())
  .on('POST /auth-tokens-by-action', tokenRoute(120))
  .on('GET /currencies', () => ({ body: { data: [{ code: 'EUR', name: 'Euro', decimals: 2 }, { code: 'KWD', decimals: 3 }, { code: 'JPY', decimals: 0 }] } }))
  .on('POST /payouts/:id', (req) => ({
    status: 201,
    body: { paymentMethodResponse: { idPayout: req.url.split('/').pop(), paymentMethodCode: 'BANK_TRANSFER' }, paymentRequested: { money: JSON.parse(req.body).paymentRequested.money } },
  }))
  .on('GET /balances', () => ({ body: { data: [{ currencyCode: 'KWD', available: 1234.567, reserved: 0.001 }, { available: 10, currencyCode: 'JPY', extra: true }] } }));

let f: ClientFixture;
beforeAll(async () => {
  await gw.start();
  f = await clientFixture(gw.url);
});
afterAll(async () => {
  f.ctx.close();
  await gw.stop();
});

const payout = {
  amountMinor: 125050,
  currencyCode: 'EUR',
  accountName: 'Jane Doe',
  accountNumber: 'DE89370400440532013000',
  paymentOperatorCode: 'EU_SEPA',
  paymentMethodCode: 'BANK_TRANSFER',
  emailAddress: 'jane@example.com',
};

describe('signed token request', () => {
  it('signs the exact minified body sent, verifiable by node:crypto and by openssl', async () => {
    await f.ctx.gatewayFor(f.profileId).createPayout('p-1', payout);
    const tokenReq = gw.requestsTo('POST /auth-tokens')[0]!;
    const signature = String(tokenReq.headers['x-signature']);
    const pem = await f.ctx.keys.publicKeyPem(f.profileId);

    // The body is minified JSON and is exactly what JSON.stringify of its own parse gives.
    expect(tokenReq.body).toBe(JSON.stringify(JSON.parse(tokenReq.body)));
    const parsed = JSON.parse(tokenReq.body) as Record<string, unknown>;
    expect(parsed).toMatchObject({ merchantCode: 'M1', validitySecs: 900, operations: appOperations('/payins/{idPayin}/account-data') });
    expect(Math.abs(Number(parsed.timestamp) - Date.now())).toBeLessThan(10_000); // milliseconds by default
    expect(parsed).not.toHaveProperty('secret');

    expect(verify('sha256', Buffer.from(tokenReq.body, 'utf8'), createPublicKey(pem), Buffer.from(signature, 'base64'))).toBe(true);
    expect(verify('sha256', Buffer.from(`${tokenReq.body} `, 'utf8'), createPublicKey(pem), Buffer.from(signature, 'base64'))).toBe(false);

    const dir = mkdtempSync(join(tmpdir(), 'desk-openssl-'));
    writeFileSync(join(dir, 'pub.pem'), pem);
    writeFileSync(join(dir, 'sig.bin'), Buffer.from(signature, 'base64'));
    writeFileSync(join(dir, 'body.json'), tokenReq.body);
    const out = execFileSync('openssl', ['dgst', '-sha256', '-verify', 'pub.pem', '-signature', 'sig.bin', 'body.json'], { cwd: dir, encoding: 'utf8' });
    expect(out.trim()).toBe('Verified OK');
    writeFileSync(join(dir, 'body.json'), tokenReq.body.replace('"M1"', '"M2"'));
    expect(() => execFileSync('openssl', ['dgst', '-sha256', '-verify', 'pub.pem', '-signature', 'sig.bin', 'body.json'], { cwd: dir, stdio: 'pipe' })).toThrow();
  });

  it('asks only for anchored operations the app uses, never a catch-all', () => {
    const ops = appOperations('/payins/{idPayin}/account-data');
    expect(ops).toContain('POST /payouts/[A-Za-z0-9_-]{1,64}');
    expect(ops).toContain('GET /payins/[A-Za-z0-9_-]{1,64}/account-data');
    for (const op of ops) {
      expect(op).toMatch(/^(GET|POST) \/\S+$/);
      expect(op).not.toMatch(/\.\*/);
      const re = new RegExp(`^(?:${op})$`);
      expect(re.test(`${op.split(' ')[0]} /payouts/x/../../admin`)).toBe(false);
    }
  });

  it('sends the timestamp in seconds when the profile says so', async () => {
    const g = await clientFixture(gw.url, { timestampUnit: 's' });
    const before = gw.requestsTo('POST /auth-tokens').length;
    await g.ctx.gatewayFor(g.profileId).decodedTokenClaims();
    const body = JSON.parse(gw.requestsTo('POST /auth-tokens')[before]!.body) as { timestamp: number };
    expect(Math.abs(body.timestamp - Date.now() / 1000)).toBeLessThan(10);
    g.ctx.close();
  });
});

describe('request headers and bodies', () => {
  it('sends Accept, X-API-Version, Bearer token; Content-Type only with a body', async () => {
    const client = f.ctx.gatewayFor(f.profileId);
    await client.createPayout('p-2', payout);
    await client.balances(['KWD', 'JPY']);
    const post = gw.requestsTo('POST /payouts/:id').at(-1)!;
    const get = gw.requestsTo('GET /balances').at(-1)!;
    for (const r of [post, get]) {
      expect(r.headers.accept).toBe('application/json');
      expect(r.headers['x-api-version']).toBe('2');
      expect(String(r.headers.authorization)).toMatch(/^Bearer eyJ/);
      expect(r.headers['x-signature']).toBeUndefined();
    }
    expect(post.headers['content-type']).toBe('application/json');
    expect(get.headers['content-type']).toBeUndefined();
    expect(get.body).toBe('');
    expect(get.url).toBe('/balances?currencies=KWD,JPY');
    const tokenReq = gw.requestsTo('POST /auth-tokens').at(-1)!;
    expect(tokenReq.headers.authorization).toBeUndefined();
  });

  it('writes amounts as exact decimal literals from minor units, by gateway decimals', async () => {
    const client = f.ctx.gatewayFor(f.profileId);
    await client.createPayout('p-3', { ...payout, amountMinor: 1, currencyCode: 'KWD' });
    await client.createPayout('p-4', { ...payout, amountMinor: 100, currencyCode: 'JPY' });
    await client.createPayout('p-5', { ...payout, amountMinor: 999_999_999_999_999, currencyCode: 'EUR' });
    await expect(client.createPayout('p-6', { ...payout, amountMinor: 9_007_199_254_740_991, currencyCode: 'EUR' })).rejects.toMatchObject({
      kind: 'validation',
      code: 'AMOUNT_TOO_PRECISE',
    });
    const bodies = gw.requestsTo('POST /payouts/:id').slice(-3).map((r) => r.body);
    expect(gw.requestsTo('POST /payouts/:id').some((r) => r.url.endsWith('/p-6'))).toBe(false);
    expect(bodies[0]).toContain('"money":{"amount":0.001,"currencyCode":"KWD"}');
    expect(bodies[1]).toContain('"money":{"amount":100,"currencyCode":"JPY"}');
    expect(bodies[2]).toContain('"amount":9999999999999.99');
    expect(bodies[0]).toBe(
      '{"paymentRequested":{"money":{"amount":0.001,"currencyCode":"KWD"}},"paymentMethod":{"paymentMethodCode":"BANK_TRANSFER","paymentOperatorCode":"EU_SEPA","account":{"accountName":"Jane Doe","accountNumber":"DE89370400440532013000"},"emailAddress":"jane@example.com"}}',
    );
  });

  it('reads response amounts back into minor units and tolerates extra or reordered fields', async () => {
    const client = f.ctx.gatewayFor(f.profileId);
    const created = await client.createPayout('p-7', { ...payout, amountMinor: 125050 });
    expect(created).toMatchObject({ idPayout: 'p-7', amountMinor: 125050, currencyCode: 'EUR', paymentMethodCode: 'BANK_TRANSFER' });
    const balances = await client.balances(['KWD', 'JPY']);
    expect(balances).toEqual([
      { currencyCode: 'KWD', availableMinor: 1234567, reservedMinor: 1 },
      { currencyCode: 'JPY', availableMinor: 10 },
    ]);
  });

  it('issues a one-payin token with a money limit and returns its claims', async () => {
    const client = f.ctx.gatewayFor(f.profileId);
    const t = await client.createPayinToken({ action: 'PAYIN_INFO', idPayin: 'in-1', validitySecs: 120, money: { amountMinor: 500, currencyCode: 'EUR' } });
    expect(t.token).toMatch(/^eyJ/);
    const req = gw.requestsTo('POST /auth-tokens-by-action').at(-1)!;
    expect(req.body).toMatch(/^\{"merchantCode":"M1","validitySecs":120,"action":"PAYIN_INFO","idPayment":"in-1","money":\{"amount":5,"currencyCode":"EUR"\},"timestamp":\d+\}$/);
    const pem = await f.ctx.keys.publicKeyPem(f.profileId);
    expect(verify('sha256', Buffer.from(req.body), createPublicKey(pem), Buffer.from(String(req.headers['x-signature']), 'base64'))).toBe(true);
  });
});
