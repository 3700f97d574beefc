// Versioning, routing and parsing stages of the sandbox pipeline, and the headers of the interface's table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, payoutBody, rsaKeys, signBody, startWithClient, type SandboxClient } from './helpers';

let client: SandboxClient;
let token: string;

beforeAll(async () => {
  client = await startWithClient();
  token = await client.token();
});
afterAll(() => client.sandbox.close());

describe('X-API-Version (spec §9, §7 404 row)', () => {
  it('refuses a request without X-API-Version with 404 UNSUPPORTED_VERSION', async () => {
    const response = await client.request('GET', '/currencies', { token, version: null });
    expect(response.status).toBe(404);
    expect(errorCode(response)).toBe('UNSUPPORTED_VERSION');
  });

  it.each(['1', '3', '2.76', ''])('refuses version "%s" with 404', async (version) => {
    const response = await client.request('GET', '/currencies', { token, version });
    expect(response.status).toBe(404);
    expect(errorCode(response)).toBe('UNSUPPORTED_VERSION');
  });

  it('checks the version before anything else: unknown routes and token calls too', async () => {
    const unknown = await client.request('GET', '/no-such-thing', { version: null });
    expect(errorCode(unknown)).toBe('UNSUPPORTED_VERSION');
    const tokenCall = await client.request('POST', '/auth-tokens', { body: {}, version: '3' });
    expect(errorCode(tokenCall)).toBe('UNSUPPORTED_VERSION');
  });

  it('answers major version 2', async () => {
    const response = await client.request('GET', '/currencies', { token });
    expect(response.status).toBe(200);
  });
});

describe('routing and parsing', () => {
  it('refuses an unknown route loudly with 404 ROUTE_NOT_FOUND and the error body', async () => {
    const response = await client.request('GET', '/payouts', { token });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: 'ROUTE_NOT_FOUND', message: expect.stringContaining('/payouts') } });
  });

  it('refuses an unknown method on a known path', async () => {
    const response = await client.request('DELETE', '/payouts/abc', { token });
    expect(response.status).toBe(404);
    expect(errorCode(response)).toBe('ROUTE_NOT_FOUND');
  });

  it('refuses unknown query parameters with 400', async () => {
    const response = await client.request('GET', '/currencies?page=2', { token });
    expect(response.status).toBe(400);
    expect(errorCode(response)).toBe('UNKNOWN_QUERY_PARAMETER');
  });

  it.each([
    ['too long', 'a'.repeat(65)],
    ['a space', 'abc%20def'],
    ['a dot', 'abc.def'],
  ])('refuses an id with %s with 400 INVALID_ID', async (_label, id) => {
    const create = await client.request('POST', `/payouts/${id}`, { token, body: payoutBody() });
    expect(create.status).toBe(400);
    expect(errorCode(create)).toBe('INVALID_ID');
    const read = await client.request('GET', `/payins/${id}`, { token });
    expect(errorCode(read)).toBe('INVALID_ID');
  });

  it('accepts the longest allowed id (64 of A-Z a-z 0-9 _ -)', async () => {
    const id = `Ab_-9${'x'.repeat(59)}`;
    const response = await client.request('POST', `/payouts/${id}`, { token, body: payoutBody() });
    expect(response.status).toBe(201);
  });

  it('answers a body over 1 MB with 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ ...payoutBody(), padding: 'x'.repeat(1_048_577) });
    const response = await client.request('POST', '/payouts/too-big-1', { token, body: big });
    expect(response.status).toBe(413);
    expect(errorCode(response)).toBe('PAYLOAD_TOO_LARGE');
    expect(client.sandbox.state().payouts.find((p) => p.idPayout === 'too-big-1')).toBeUndefined();
  });

  it('refuses a body that is not JSON with 400 INVALID_JSON', async () => {
    const response = await client.request('POST', '/payouts/bad-json-1', { token, body: '{"paymentRequested":' });
    expect(response.status).toBe(400);
    expect(errorCode(response)).toBe('INVALID_JSON');
  });

  it('refuses a body sent with another content type with 415', async () => {
    const response = await client.request('POST', '/payouts/form-1', {
      token,
      body: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
    expect(errorCode(response)).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses a body on a call that takes none', async () => {
    const response = await client.request('POST', '/merchant-info', { token, body: { merchantCode: 'x' } });
    expect(response.status).toBe(400);
    expect(errorCode(response)).toBe('BODY_NOT_ALLOWED');
  });
});

// One test per row of the interface's header table (spec §4) that the sandbox enforces. X-API-Version
// is covered above; Accept is not checked by the sandbox (docs/gateway-notes.md, Endpoints).
describe('headers on API calls (spec §4 header table)', () => {
  it('Authorization: only "Bearer <token>" is accepted; the token without the scheme or under another scheme is 401', async () => {
    const send = (authorization?: string) =>
      fetch(`${client.sandbox.url}/currencies`, { headers: { 'x-api-version': '2', ...(authorization ? { authorization } : {}) } });
    expect((await send(`Bearer ${token}`)).status).toBe(200);
    const missing = await send();
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('MISSING_TOKEN');
    for (const wrong of [token, `Basic ${token}`, `Token ${token}`, 'Bearer', `Bearer ${token} extra`]) {
      const response = await send(wrong);
      expect(response.status, wrong.slice(0, 12)).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('INVALID_TOKEN');
    }
  });

  it('Authorization is not needed on token generation calls (they authenticate by X-SIGNATURE)', async () => {
    const response = await client.signedTokenRequest('/auth-tokens', { merchantCode: client.merchantCode, validitySecs: 60, operations: ['GET /currencies'], timestamp: Date.now() });
    expect(response.status).toBe(200);
  });

  it('Content-Type: a body without it is refused with 415 and stores nothing; application/json with a charset is fine', async () => {
    const body = new TextEncoder().encode(JSON.stringify(payoutBody()));
    // A byte body: fetch adds no Content-Type of its own.
    const bare = await fetch(`${client.sandbox.url}/payouts/no-ctype-1`, {
      method: 'POST',
      headers: { 'x-api-version': '2', authorization: `Bearer ${token}` },
      body,
    });
    expect(bare.status).toBe(415);
    expect(((await bare.json()) as { error: { code: string } }).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(client.sandbox.state().payouts.some((p) => p.idPayout === 'no-ctype-1')).toBe(false);

    const charset = await client.request('POST', '/payouts/ctype-charset-1', { token, body: payoutBody(), headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(charset.status).toBe(201);
    // Calls without a body need no Content-Type.
    expect((await client.request('GET', '/payouts/ctype-charset-1', { token })).status).toBe(200);
  });

  it('Content-Type: a correctly signed token request sent as text/plain is refused with 415', async () => {
    const raw = JSON.stringify({ merchantCode: client.merchantCode, validitySecs: 60, operations: ['GET /currencies'], timestamp: Date.now() });
    const response = await client.request('POST', '/auth-tokens', {
      body: raw,
      headers: { 'content-type': 'text/plain', 'x-signature': signBody(raw, client.keys.privateKey) },
    });
    expect(response.status).toBe(415);
    expect(errorCode(response)).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('X-SIGNATURE: required on both token generation calls; missing, wrong or over other bytes is 401', async () => {
    const general = { merchantCode: client.merchantCode, validitySecs: 60, operations: ['GET /currencies'], timestamp: Date.now() };
    const byAction = { merchantCode: client.merchantCode, validitySecs: 60, action: 'PAYIN_INFO', idPayment: 'sig-payin-1', timestamp: Date.now() };
    for (const [path, body] of [['/auth-tokens', general], ['/auth-tokens-by-action', byAction]] as const) {
      // This merchant has no deprecated secret: without X-SIGNATURE nothing proves who is asking.
      const missing = await client.request('POST', path, { body });
      expect(missing.status, path).toBe(401);
      expect(errorCode(missing)).toBe('MISSING_CREDENTIALS');
      const stranger = await client.signedTokenRequest(path, body, { key: rsaKeys().privateKey });
      expect(stranger.status, path).toBe(401);
      expect(errorCode(stranger)).toBe('INVALID_SIGNATURE');
      const otherBytes = await client.signedTokenRequest(path, body, { rawBody: JSON.stringify({ ...body, validitySecs: 61 }), signature: signBody(JSON.stringify(body), client.keys.privateKey) });
      expect(otherBytes.status, path).toBe(401);
      expect(errorCode(otherBytes)).toBe('INVALID_SIGNATURE');
      const signed = await client.signedTokenRequest(path, body);
      expect(signed.status, path).toBe(200);
    }
  });
});
