// Versioning, routing and parsing stages of the sandbox pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, payoutBody, startWithClient, type SandboxClient } from './helpers';

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
