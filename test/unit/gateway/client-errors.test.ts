// Error mapping, the token cache and the retry rules of the client against a scripted gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../main/gateway/errors';
import { errorBodyFields, parseRetryAfter } from '../../../main/gateway/error-mapping';
import { FakeGateway, clientFixture, fakeJwt, tokenRoute, type ClientFixture } from './fake-gateway';

const gw = new FakeGateway()
  .on('POST /auth-tokens', tokenRoute())
  .on('GET /currencies', () => ({ status: 503, body: { message: 'down' } }))
  .on('GET /payouts/:id', async (req, n) => {
    const payoutId = req.url.split('/').pop()!;
    switch (payoutId) {
      case 'unknown':
        return { status: 404, body: { error: { code: 'NOT_FOUND', message: 'no such payout' } } };
      case 'old-version':
        return { status: 404, body: { error: { code: 'UNSUPPORTED_VERSION', message: 'version 2 is not supported' } } };
      case 'no-status':
        return { body: { process: { createdAt: '2026-01-01T00:00:00.000Z' } } };
      case 'flaky':
        return n <= 2 ? { status: 502, text: 'bad gateway' } : { body: { process: { status: 'SUCCESS' }, paymentMethodResponse: { idPayout: 'flaky' } } };
      case 'throttled':
        return n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: { error: { code: 'RATE_LIMITED', message: 'slow down' } } } : { body: { process: { status: 'PENDING' } } };
      case 'throttled-hard':
        return { status: 429, headers: { 'retry-after': '1' }, body: { error: { code: 'RATE_LIMITED', message: 'slow down' } } };
      case 'expired-token':
        return n === 1 ? { status: 401, body: { error: { code: 'TOKEN_EXPIRED', message: 'expired' } } } : { body: { process: { status: 'PROCESSING' } } };
      case 'always-401':
        return { status: 401, body: { code: 'INVALID_TOKEN', message: `token ${String(req.headers.authorization).slice(7)} is bad` } };
      case 'forbidden':
        return { status: 403, body: { errors: [{ code: 'OPERATION_NOT_ALLOWED', message: 'not in the token' }] } };
      case 'slow':
        await new Promise((r) => setTimeout(r, 3000));
        return { body: { process: { status: 'SUCCESS' } } };
      case 'odd-amount':
        return { body: { process: { status: 'SUCCESS' }, paymentRequested: { money: { amount: 10.123, currencyCode: 'EUR' } } } };
      default:
        return { body: { fee: { amount: 1.5, currencyCode: 'EUR' }, process: { isTest: true, status: 'FAILED', failureReason: 'ACCOUNT_CLOSED' }, unknownField: 1, paymentRequested: { money: { currencyCode: 'EUR', amount: 12 } } } };
    }
  })
  .on('POST /payouts/:id', (req) => {
    const payoutId = req.url.split('/').pop()!;
    if (payoutId === 'dup') return { status: 409, body: { error: { code: 'DUPLICATE_ID', message: 'already accepted' } } };
    if (payoutId === 'bad') return { status: 400, body: { error: 'amount must be positive' } };
    return { status: 500, body: { error: { code: 'INTERNAL_ERROR', message: 'boom' } } };
  })
  .on('POST /merchant-info', () => ({ body: { channelInfo: { name: 'Demo Store' } } }));
// GET /merchant-info is not registered: the fake answers 405, the client must fall back to POST.

let f: ClientFixture;
beforeAll(async () => {
  await gw.start();
  f = await clientFixture(gw.url);
});
afterAll(async () => {
  f.ctx.close();
  await gw.stop();
});

async function failure(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayError);
    return e as GatewayError;
  }
  throw new Error('expected a GatewayError');
}

const payout = { amountMinor: 100, currencyCode: 'EUR', accountName: 'A', accountNumber: '1', paymentOperatorCode: 'OP', paymentMethodCode: 'BANK_TRANSFER', emailAddress: 'a@b.co' };

describe('typed errors', () => {
  it('maps 404 by route and code, 409, 400, 403 and 5xx with status, code and message', async () => {
    const c = f.ctx.gatewayFor(f.profileId);
    const notFound = await failure(c.getPayout('unknown'));
    expect(notFound).toMatchObject({ kind: 'not-found', status: 404, code: 'NOT_FOUND', retryable: false });
    expect(notFound.message).toContain('no such payout');
    expect(await failure(c.getPayout('old-version'))).toMatchObject({ kind: 'unsupported-version', code: 'UNSUPPORTED_VERSION' });
    expect(await failure(c.createPayout('dup', payout))).toMatchObject({ kind: 'conflict', status: 409, code: 'DUPLICATE_ID' });
    const validation = await failure(c.createPayout('bad', payout));
    expect(validation).toMatchObject({ kind: 'validation', status: 400 });
    expect(validation.message).toContain('amount must be positive');
    expect(await failure(c.getPayout('forbidden'))).toMatchObject({ kind: 'forbidden', status: 403, code: 'OPERATION_NOT_ALLOWED' });
  });

  it('does not retry a payout create after a 5xx (the engine decides), but retries an idempotent GET', async () => {
    const c = f.ctx.gatewayFor(f.profileId);
    const before = gw.requestsTo('POST /payouts/:id').filter((r) => r.url.endsWith('/boom')).length;
    expect(await failure(c.createPayout('boom', payout))).toMatchObject({ kind: 'server', status: 500, retryable: true });
    expect(gw.requestsTo('POST /payouts/:id').filter((r) => r.url.endsWith('/boom')).length).toBe(before + 1);

    const flaky = await c.getPayout('flaky');
    expect(flaky.status).toBe('SUCCESS');
    expect(gw.requestsTo('GET /payouts/:id').filter((r) => r.url.endsWith('/flaky'))).toHaveLength(3);
  });

  it('waits Retry-After and retries once after a 429; a second 429 surfaces as rate-limited', async () => {
    const c = f.ctx.gatewayFor(f.profileId);
    const started = Date.now();
    expect((await c.getPayout('throttled')).status).toBe('PENDING');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    const err = await failure(c.getPayout('throttled-hard'));
    expect(err).toMatchObject({ kind: 'rate-limited', status: 429, retryable: true });
    expect(err.details.retryAfterMs).toBe(1000);
    expect(gw.requestsTo('GET /payouts/:id').filter((r) => r.url.endsWith('/throttled-hard'))).toHaveLength(2);
  });

  it('refreshes the token once on 401, then gives a clear unauthorized error without the token', async () => {
    const c = f.ctx.gatewayFor(f.profileId);
    const bearer = (r: { headers: Record<string, unknown> }) => String(r.headers.authorization);
    await c.decodedTokenClaims(); // a cached token to start from
    const tokensBefore = gw.count('POST /auth-tokens');
    expect((await c.getPayout('expired-token')).status).toBe('PROCESSING');
    expect(gw.count('POST /auth-tokens')).toBe(tokensBefore + 1);
    const expiredTries = gw.requestsTo('GET /payouts/:id').filter((r) => r.url.endsWith('/expired-token'));
    expect(expiredTries).toHaveLength(2);
    expect(bearer(expiredTries[1]!)).not.toBe(bearer(expiredTries[0]!)); // the retry carries the fresh token

    // Refused with the fresh token too: exactly one more token request, exactly two tries, then the error.
    const tokensBefore401 = gw.count('POST /auth-tokens');
    const err = await failure(c.getPayout('always-401'));
    expect(gw.count('POST /auth-tokens')).toBe(tokensBefore401 + 1);
    const tries = gw.requestsTo('GET /payouts/:id').filter((r) => r.url.endsWith('/always-401'));
    expect(tries).toHaveLength(2);
    expect(bearer(tries[1]!)).not.toBe(bearer(tries[0]!));
    expect(err.kind).toBe('unauthorized');
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/freshly issued token was refused/);
    expect(err.message).not.toMatch(/eyJ/);
    expect(err.message).toContain('[REDACTED]');
  });

  it('maps a missing required field to bad-response and an inexact amount too', async () => {
    const c = f.ctx.gatewayFor(f.profileId);
    const err = await failure(c.getPayout('no-status'));
    expect(err).toMatchObject({ kind: 'bad-response', status: 200 });
    expect(err.message).toContain('process.status');
    expect(await failure(c.getPayout('odd-amount'))).toMatchObject({ kind: 'bad-response' });
  });

  it('reads a full status with unknown fields, fee and failure reason (ISO decimals when /currencies fails)', async () => {
    const s = await f.ctx.gatewayFor(f.profileId).getPayout('ok-1');
    expect(s).toMatchObject({ idPayout: 'ok-1', status: 'FAILED', amountMinor: 1200, currencyCode: 'EUR', feeMinor: 150, feeCurrencyCode: 'EUR', isTest: true, failureReason: 'ACCOUNT_CLOSED' });
  });

  it('falls back to POST /merchant-info on 405', async () => {
    expect((await f.ctx.gatewayFor(f.profileId).merchantInfo()).channelName).toBe('Demo Store');
    expect(gw.requestsTo('GET /merchant-info')).toHaveLength(1);
  });

  it('reports time-outs and refused connections as timeout / network', async () => {
    const c = f.ctx.gatewayFor(f.profileId);
    const slow = await failure(c.getPayout('slow'));
    expect(slow).toMatchObject({ kind: 'timeout', retryable: true });
    const dead = await clientFixture('http://127.0.0.1:9');
    const err = await failure(dead.ctx.gatewayFor(dead.profileId).balances(['EUR']));
    expect(err).toMatchObject({ kind: 'network', code: 'ECONNREFUSED' });
    dead.ctx.close();
  }, 30_000);

  it('refuses an invalid payment id before sending anything', async () => {
    const before = gw.requests.length;
    expect(await failure(f.ctx.gatewayFor(f.profileId).getPayout('../admin'))).toMatchObject({ kind: 'validation', code: 'ID_FORMAT' });
    expect(gw.requests.length).toBe(before);
  });
});

describe('token cache', () => {
  it('fetches one token for many concurrent callers and reuses it', async () => {
    const g = await clientFixture(gw.url);
    const before = gw.count('POST /auth-tokens');
    const c = g.ctx.gatewayFor(g.profileId);
    await Promise.all(Array.from({ length: 8 }, (_, i) => c.getPayout(`cache-${i}`)));
    await c.getPayout('cache-again');
    expect(gw.count('POST /auth-tokens')).toBe(before + 1);
    const claims = await c.decodedTokenClaims();
    expect(claims.sub).toBe('M1');
    expect(typeof claims.exp).toBe('number');
    g.ctx.close();
  });

  it('reads accessToken / access_token answers and rejects a token-less answer', async () => {
    const alt = new FakeGateway()
      .on('POST /auth-tokens', async (_r, n) => (n === 1 ? { body: { access_token: await fakeJwt({ sub: 'alt' }) } } : { body: { accessToken: await fakeJwt({ sub: 'alt2' }, 1) } }))
      .on('GET /merchant-info', () => ({ body: { channelInfo: { name: 'Alt' } } }));
    await alt.start();
    const g = await clientFixture(alt.url);
    const c = g.ctx.gatewayFor(g.profileId);
    expect((await c.decodedTokenClaims()).sub).toBe('alt');
    g.ctx.close();
    await alt.stop();

    const none = new FakeGateway().on('POST /auth-tokens', () => ({ body: { jwt: 'nope' } }));
    await none.start();
    const h = await clientFixture(none.url);
    expect(await failure(h.ctx.gatewayFor(h.profileId).decodedTokenClaims())).toMatchObject({ kind: 'bad-response' });
    h.ctx.close();
    await none.stop();
  });

  it('explains a refused token request by key fingerprint', async () => {
    const refuse = new FakeGateway().on('POST /auth-tokens', () => ({ status: 401, body: { error: { code: 'INVALID_SIGNATURE', message: 'no key matches' } } }));
    await refuse.start();
    const g = await clientFixture(refuse.url);
    const err = await failure(g.ctx.gatewayFor(g.profileId).balances(['EUR']));
    const key = g.ctx.keys.keyRecord(g.profileId);
    expect(err).toMatchObject({ kind: 'unauthorized', code: 'INVALID_SIGNATURE' });
    expect(err.message).toContain(key.fingerprint);
    expect(refuse.count('POST /auth-tokens')).toBe(1);
    g.ctx.close();
    await refuse.stop();
  });
});

describe('error body readers', () => {
  it('finds code and message in every common shape', () => {
    expect(errorBodyFields({ error: { code: 'A', message: 'm' } })).toEqual({ code: 'A', message: 'm' });
    expect(errorBodyFields({ code: 'B', message: 'n' })).toEqual({ code: 'B', message: 'n' });
    expect(errorBodyFields({ errors: [{ code: 'C', message: 'o' }] })).toEqual({ code: 'C', message: 'o' });
    expect(errorBodyFields({ error: 'SOME_CODE' })).toEqual({ code: 'SOME_CODE', message: 'SOME_CODE' });
    expect(errorBodyFields({ title: 'Bad', detail: 'very' })).toEqual({ message: 'very' });
    expect(errorBodyFields('plain text')).toEqual({ message: 'plain text' });
    expect(errorBodyFields(null)).toEqual({});
  });

  it('reads Retry-After as seconds or HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('0.5')).toBe(500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 7_000)).toBe(3000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
