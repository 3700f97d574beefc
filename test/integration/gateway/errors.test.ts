// Every typed error provoked for real through the sandbox (its fault switches, its rules), with the
// retry behaviour the engine relies on: creates are not repeated by the client, GETs are.
import diagnostics from 'node:diagnostics_channel';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../sandbox/index';
import { GatewayClient } from '../../../main/gateway/client';
import { GatewayError } from '../../../main/gateway/errors';
import { RateLimiter } from '../../../main/gateway/rate-limiter';
import { sandboxFixture, samplePayout, type SandboxFixture } from './sandbox-fixture';

async function failure(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof GatewayError) return e;
    throw e;
  }
  throw new Error('expected a GatewayError');
}

/** Every answer the HTTP server on `port` gave (method, path, status), seen from inside this process. */
function answersOn(port: number) {
  const seen: string[] = [];
  const onFinish = (message: unknown) => {
    const { server, request, response } = message as { server: Server; request: IncomingMessage; response: ServerResponse };
    if ((server.address() as AddressInfo | null)?.port === port) seen.push(`${request.method} ${request.url} ${response.statusCode}`);
  };
  diagnostics.subscribe('http.server.response.finish', onFinish);
  return { seen, stop: () => diagnostics.unsubscribe('http.server.response.finish', onFinish) };
}

let f: SandboxFixture;
beforeAll(async () => {
  f = await sandboxFixture({ fetchTimeoutMs: 1500 });
});
afterAll(async () => f.close());
const client = () => f.ctx.gatewayFor(f.profileId);

describe('typed errors from the sandbox', () => {
  it('conflict on a repeated id, not-found on an unknown id, validation on a bad body', async () => {
    await client().createPayout('err-dup', samplePayout);
    expect(await failure(client().createPayout('err-dup', samplePayout))).toMatchObject({ kind: 'conflict', status: 409, code: 'DUPLICATE_ID' });
    expect(await failure(client().getPayout('err-nobody'))).toMatchObject({ kind: 'not-found', status: 404, code: 'NOT_FOUND' });
    const bad = await failure(client().createPayout('err-op', { ...samplePayout, paymentOperatorCode: 'NOPE' }));
    expect(bad).toMatchObject({ kind: 'validation', status: 400, code: 'UNKNOWN_PAYMENT_OPERATOR' });
    expect(bad.message).toMatch(/NOPE|operator/i);
  });

  it('unsupported-version when the profile names a major version the gateway does not serve', async () => {
    const p = f.ctx.profiles.add({ name: 'V3', baseUrl: f.sandbox.url, merchantCode: 'DEMO-MERCHANT', apiMajorVersion: 3 });
    await f.ctx.keys.importKey(p.id, await f.ctx.keys.backupPem(f.profileId, f.ctx.keys.keyRecord(f.profileId).keyId, 'temporary passphrase', true), 'temporary passphrase');
    const err = await failure(f.ctx.gatewayFor(p.id).merchantInfo());
    expect(err).toMatchObject({ kind: 'unsupported-version', status: 404, code: 'UNSUPPORTED_VERSION' });
  });

  it('server error on a create is surfaced, not retried; the sandbox stored nothing', async () => {
    f.sandbox.setFaults({ failBeforeStoreNext: 1 });
    const err = await failure(client().createPayout('err-500', samplePayout));
    expect(err).toMatchObject({ kind: 'server', status: 500, retryable: true });
    const state = f.sandbox.state();
    expect(state.createAttempts.payouts['err-500']).toBe(1);
    expect(state.payouts.some((p) => p.idPayout === 'err-500')).toBe(false);
  });

  it('network error when the connection drops after the payment was stored (the engine resolves it with GET)', async () => {
    f.sandbox.setFaults({ dropAfterStoreNext: 1 });
    const err = await failure(client().createPayout('err-drop', samplePayout));
    expect(err.kind).toBe('network');
    expect(err.retryable).toBe(true);
    expect(f.sandbox.state().createAttempts.payouts['err-drop']).toBe(1);
    expect((await client().getPayout('err-drop')).idPayout).toBe('err-drop');
  });

  it('time-out when the gateway answers too late', async () => {
    f.sandbox.setFaults({ latencyMs: 2500 });
    try {
      const err = await failure(client().createPayout('err-slow', samplePayout));
      expect(err).toMatchObject({ kind: 'timeout', retryable: true });
      expect(err.message).toContain('1500 ms');
    } finally {
      f.sandbox.setFaults({ latencyMs: 0 });
    }
  });

  it('forbidden when the token does not cover the operation', async () => {
    const narrow = new GatewayClient({
      profile: f.ctx.profiles.get(f.profileId),
      credentials: async () => ({ kind: 'signature', signer: await f.ctx.keys.signerFor(f.profileId) }),
      limiter: f.ctx.limiterFor(f.ctx.profiles.get(f.profileId)),
      tokenOperations: ['GET /payouts/[A-Za-z0-9_-]{1,64}'],
    });
    const err = await failure(narrow.createPayout('err-403', samplePayout));
    expect(err).toMatchObject({ kind: 'forbidden', status: 403, code: 'OPERATION_NOT_ALLOWED' });
  });

  it('rate-limited with Retry-After when a second desk floods the same merchant past its own limiter', async () => {
    // A limiter that believes in 100/s lets 40 requests go at once; the sandbox allows 10.
    const flood = new GatewayClient({
      profile: f.ctx.profiles.get(f.profileId),
      credentials: async () => ({ kind: 'signature', signer: await f.ctx.keys.signerFor(f.profileId) }),
      limiter: new RateLimiter({ limit: 100 }),
    });
    await flood.decodedTokenClaims();
    await new Promise((r) => setTimeout(r, 1100));
    const before = f.sandbox.state().rateLimitedCount;
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => flood.currencies()));
    const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as GatewayError] : []));
    expect(f.sandbox.state().rateLimitedCount).toBeGreaterThan(before);
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) {
      expect(e).toMatchObject({ kind: 'rate-limited', status: 429, retryable: true });
      expect(e.details.retryAfterMs).toBeGreaterThan(0);
    }
    // Each request was tried at most twice: the one retry after Retry-After.
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThanOrEqual(10);
  });
});

describe('credentials', () => {
  it('unauthorized with the key fingerprint when the public key is not registered', async () => {
    const g = await sandboxFixture({ register: false });
    try {
      const err = await failure(g.ctx.gatewayFor(g.profileId).merchantInfo());
      expect(err).toMatchObject({ kind: 'unauthorized', status: 401, code: 'INVALID_SIGNATURE' });
      expect(err.message).toContain(g.ctx.keys.keyRecord(g.profileId).fingerprint);
    } finally {
      await g.close();
    }
  });

  it('gets a token with the deprecated secret only when the profile opts in', async () => {
    const g = await sandboxFixture({
      register: false,
      config: { merchants: [{ code: 'DEMO-MERCHANT', channelName: 'Demo Store', secret: 'sandbox-secret-123' }] },
    });
    try {
      await g.ctx.keys.setDeprecatedSecret(g.profileId, 'sandbox-secret-123');
      expect((await failure(g.ctx.gatewayFor(g.profileId).merchantInfo())).kind).toBe('unauthorized');
      g.ctx.profiles.update(g.profileId, { useDeprecatedSecret: true });
      expect((await g.ctx.gatewayFor(g.profileId).merchantInfo()).channelName).toBe('Demo Store');
    } finally {
      await g.close();
    }
  });

  it('refreshes once when the gateway stops accepting the cached token', async () => {
    const secretA = 'a'.repeat(40);
    const g = await sandboxFixture({ config: { tokens: { signingSecret: secretA } } });
    const c = g.ctx.gatewayFor(g.profileId);
    expect((await c.merchantInfo()).channelName).toBe('Demo Store');
    const port = Number(new URL(g.sandbox.url).port);
    const pem = await g.ctx.keys.publicKeyPem(g.profileId);
    await g.sandbox.close();
    // Same address, new token signing key: the cached token is now invalid (401), a new one works.
    const restarted = await startSandbox({ tokens: { signingSecret: 'b'.repeat(40) } }, { port });
    const answers = answersOn(port);
    try {
      restarted.registerPublicKey('DEMO-MERCHANT', pem);
      expect((await c.merchantInfo()).channelName).toBe('Demo Store');
      // Exactly: the call with the old token (401), one token request, the same call once more (200).
      expect(answers.seen).toEqual(['GET /merchant-info 401', 'POST /auth-tokens 200', 'GET /merchant-info 200']);
      // The fresh token is cached: the next call needs no other token request.
      expect((await c.merchantInfo()).channelName).toBe('Demo Store');
      expect(answers.seen.filter((a) => a.startsWith('POST /auth-tokens'))).toHaveLength(1);
    } finally {
      answers.stop();
      g.ctx.close();
      await restarted.close();
    }
  });

  it('refreshes once, then gives a clear error when the fresh token is refused too: one token request, two tries', async () => {
    // Tokens come from a second gateway whose signing key the API gateway does not know, so every
    // token the desk gets is refused there with 401 INVALID_TOKEN; a small proxy routes the calls.
    const g = await sandboxFixture();
    const issuer = await startSandbox({ tokens: { signingSecret: 'c'.repeat(40) } });
    issuer.registerPublicKey('DEMO-MERCHANT', await g.ctx.keys.publicKeyPem(g.profileId));
    const proxy = createServer((req, res) => {
      const target = req.url?.startsWith('/auth-tokens') ? issuer.url : g.sandbox.url;
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
        void fetch(`${target}${req.url}`, { method: req.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) })
          .then(async (answer) => res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(await answer.text()))
          .catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const api = answersOn(g.sandbox.port);
    const tokens = answersOn(issuer.port);
    try {
      g.ctx.profiles.update(g.profileId, { baseUrl: proxyUrl });
      const err = await failure(g.ctx.gatewayFor(g.profileId).getPayout('never-reached'));
      expect(err).toMatchObject({ kind: 'unauthorized', status: 401, code: 'INVALID_TOKEN' });
      expect(err.message).toMatch(/freshly issued token was refused too/);
      expect(err.message).not.toMatch(/eyJ/);
      // The first token, then exactly one refresh; the call tried exactly twice.
      expect(tokens.seen).toEqual(['POST /auth-tokens 200', 'POST /auth-tokens 200']);
      expect(api.seen).toEqual(['GET /payouts/never-reached 401', 'GET /payouts/never-reached 401']);
    } finally {
      api.stop();
      tokens.stop();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await issuer.close();
      await g.close();
    }
  });
});
