// Token generation (spec §5 and the token tables of §4) and the 401 house decisions.
import { SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT, SIGNING_SECRET, errorCode, rsaKeys, startWithClient, type SandboxClient } from './helpers';

const SECRET = 'merchant-secret-for-tests';
let client: SandboxClient;

beforeAll(async () => {
  client = await startWithClient({
    merchants: [{ code: MERCHANT, channelName: 'Demo Store', secret: SECRET, balancesMinor: { EUR: 1_000_000 } }],
  });
});
afterAll(() => client.sandbox.close());

const tokenRequest = (extra: Record<string, unknown> = {}) => ({
  merchantCode: MERCHANT,
  validitySecs: 120,
  operations: ['GET /currencies'],
  timestamp: Date.now(),
  ...extra,
});

describe('POST /auth-tokens', () => {
  it('issues { token, expiresAt } for a body signed with SHA256withRSA; the JWT carries the house claims', async () => {
    const before = Math.floor(Date.now() / 1000);
    const response = await client.signedTokenRequest('/auth-tokens', tokenRequest({ money: { amount: 10.5, currencyCode: 'EUR' } }));
    expect(response.status).toBe(200);
    const body = response.body as { token: string; expiresAt: string };
    const claims = decodeJwt(body.token);
    expect(claims.sub).toBe(MERCHANT);
    expect(claims.ops).toEqual(['GET /currencies']);
    expect(claims.money).toEqual({ amount: 10.5, currencyCode: 'EUR' });
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.exp).toBe((claims.iat ?? 0) + 120);
    expect(new Date(body.expiresAt).getTime()).toBe((claims.exp ?? 0) * 1000);
    const use = await client.request('GET', '/currencies', { token: body.token });
    expect(use.status).toBe(200);
  });

  it('tries every registered public key: a second key registered over the admin route also works', async () => {
    const second = rsaKeys();
    const register = await fetch(`${client.sandbox.url}/_sandbox/merchants/${MERCHANT}/keys`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: second.publicPem,
    });
    expect(register.status).toBe(201);
    const withSecond = await client.signedTokenRequest('/auth-tokens', tokenRequest(), { key: second.privateKey });
    expect(withSecond.status).toBe(200);
    const withFirst = await client.signedTokenRequest('/auth-tokens', tokenRequest());
    expect(withFirst.status).toBe(200);
  });

  it('refuses a signature made with an unregistered key with 401 INVALID_SIGNATURE', async () => {
    const stranger = rsaKeys();
    const response = await client.signedTokenRequest('/auth-tokens', tokenRequest(), { key: stranger.privateKey });
    expect(response.status).toBe(401);
    expect(errorCode(response)).toBe('INVALID_SIGNATURE');
  });

  it('refuses a signature over other bytes (body changed after signing) with 401', async () => {
    const signed = JSON.stringify(tokenRequest());
    const sent = JSON.stringify(tokenRequest({ validitySecs: 9999 }));
    const { signBody } = await import('./helpers');
    const response = await client.signedTokenRequest('/auth-tokens', {}, {
      rawBody: sent,
      signature: signBody(signed, client.keys.privateKey),
    });
    expect(response.status).toBe(401);
    expect(errorCode(response)).toBe('INVALID_SIGNATURE');
  });

  it('refuses a signature that is not base64 with 401', async () => {
    const response = await client.signedTokenRequest('/auth-tokens', tokenRequest(), { signature: '%%%not-base64%%%' });
    expect(response.status).toBe(401);
  });

  it('refuses a body that is not minified JSON with 400 BODY_NOT_MINIFIED, even when correctly signed', async () => {
    const pretty = JSON.stringify(tokenRequest(), null, 2);
    const response = await client.signedTokenRequest('/auth-tokens', {}, { rawBody: pretty });
    expect(response.status).toBe(400);
    expect(errorCode(response)).toBe('BODY_NOT_MINIFIED');
  });

  it('accepts a timestamp in seconds as well as milliseconds', async () => {
    const response = await client.signedTokenRequest('/auth-tokens', tokenRequest({ timestamp: Math.floor(Date.now() / 1000) }));
    expect(response.status).toBe(200);
  });

  it.each([
    ['milliseconds, 301 s old', () => Date.now() - 301_000],
    ['milliseconds, 301 s ahead', () => Date.now() + 301_000],
    ['seconds, 400 s old', () => Math.floor(Date.now() / 1000) - 400],
  ])('refuses a timestamp skewed beyond 300 s (%s) with 401 TIMESTAMP_SKEW', async (_label, timestamp) => {
    const response = await client.signedTokenRequest('/auth-tokens', tokenRequest({ timestamp: timestamp() }));
    expect(response.status).toBe(401);
    expect(errorCode(response)).toBe('TIMESTAMP_SKEW');
  });

  it('accepts the deprecated secret in the body instead of a signature', async () => {
    const response = await client.request('POST', '/auth-tokens', { body: tokenRequest({ secret: SECRET }) });
    expect(response.status).toBe(200);
  });

  it('refuses a wrong secret with 401 INVALID_SECRET and no credentials at all with 401', async () => {
    const wrong = await client.request('POST', '/auth-tokens', { body: tokenRequest({ secret: 'not-the-secret' }) });
    expect(wrong.status).toBe(401);
    expect(errorCode(wrong)).toBe('INVALID_SECRET');
    const none = await client.request('POST', '/auth-tokens', { body: tokenRequest() });
    expect(none.status).toBe(401);
    expect(errorCode(none)).toBe('MISSING_CREDENTIALS');
  });

  it('refuses an unknown merchant with 401', async () => {
    const response = await client.signedTokenRequest('/auth-tokens', tokenRequest({ merchantCode: 'NOBODY' }));
    expect(response.status).toBe(401);
    expect(errorCode(response)).toBe('UNKNOWN_MERCHANT');
  });

  it('refuses bad token request fields with 400 naming the field', async () => {
    const noOps = await client.signedTokenRequest('/auth-tokens', tokenRequest({ operations: [] }));
    expect(noOps.status).toBe(400);
    expect(JSON.stringify(noOps.body)).toContain('operations');
    const badRegex = await client.signedTokenRequest('/auth-tokens', tokenRequest({ operations: ['GET /payins/(['] }));
    expect(badRegex.status).toBe(400);
    const tooLong = await client.signedTokenRequest('/auth-tokens', tokenRequest({ validitySecs: 86_401 }));
    expect(tooLong.status).toBe(400);
    const unknownField = await client.signedTokenRequest('/auth-tokens', tokenRequest({ scope: 'all' }));
    expect(unknownField.status).toBe(400);
    const noTimestamp = await client.signedTokenRequest('/auth-tokens', { merchantCode: MERCHANT, operations: ['GET /x'] });
    expect(noTimestamp.status).toBe(400);
  });
});

describe('Bearer tokens on API calls', () => {
  const forge = (claims: Record<string, unknown>, secret = SIGNING_SECRET) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));

  it('answers a call without a token with 401 MISSING_TOKEN', async () => {
    const response = await client.request('GET', '/currencies');
    expect(response.status).toBe(401);
    expect(errorCode(response)).toBe('MISSING_TOKEN');
  });

  it('answers a garbage or tampered token with 401 INVALID_TOKEN', async () => {
    const garbage = await client.request('GET', '/currencies', { token: 'not.a.jwt' });
    expect(garbage.status).toBe(401);
    expect(errorCode(garbage)).toBe('INVALID_TOKEN');
    const now = Math.floor(Date.now() / 1000);
    const foreign = await forge({ sub: MERCHANT, iat: now, exp: now + 60, ops: ['.* /.*'] }, 'x'.repeat(40));
    const tampered = await client.request('GET', '/currencies', { token: foreign });
    expect(tampered.status).toBe(401);
    expect(errorCode(tampered)).toBe('INVALID_TOKEN');
  });

  it('answers an expired token with 401 TOKEN_EXPIRED', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await forge({ sub: MERCHANT, iat: now - 120, exp: now - 60, ops: ['GET /currencies'] });
    const response = await client.request('GET', '/currencies', { token: expired });
    expect(response.status).toBe(401);
    expect(errorCode(response)).toBe('TOKEN_EXPIRED');
  });

  it('refuses a token that expires after it was already used (verified tokens are cached)', async () => {
    // 3 s: expiry is in whole seconds, so a 1 s token can end before its first use reaches a loaded sandbox.
    const response = await client.signedTokenRequest('/auth-tokens', tokenRequest({ validitySecs: 3 }));
    const { token } = response.body as { token: string };
    expect((await client.request('GET', '/currencies', { token })).status).toBe(200);
    const exp = decodeJwt(token).exp ?? 0;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 50));
    const late = await client.request('GET', '/currencies', { token });
    expect(late.status).toBe(401);
    expect(errorCode(late)).toBe('TOKEN_EXPIRED');
  });

  it('answers a valid token for an unknown merchant with 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const ghost = await forge({ sub: 'GHOST', iat: now, exp: now + 60, ops: ['GET /currencies'] });
    const response = await client.request('GET', '/currencies', { token: ghost });
    expect(response.status).toBe(401);
  });
});
