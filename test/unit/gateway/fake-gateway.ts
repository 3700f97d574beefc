// A scriptable stand-in for the gateway (fastify on port 0) for unit tests of the client: it records
// every request exactly as received (raw body text, headers) and answers from per-route handlers.
import Fastify, { type FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createAppContext, type AppContext } from '../../../main/context';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface FakeAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw text instead of JSON. */
  text?: string;
}

/** `count`: how many times this exact method + URL has been requested, this one included. */
export type FakeHandler = (req: RecordedRequest, count: number) => FakeAnswer | Promise<FakeAnswer>;

const JWT_KEY = new TextEncoder().encode('fake-gateway-signing-key-for-tests');

export async function fakeJwt(claims: Record<string, unknown>, validitySecs = 600): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt(iat).setExpirationTime(iat + validitySecs).sign(JWT_KEY);
}

export class FakeGateway {
  readonly requests: RecordedRequest[] = [];
  private readonly handlers = new Map<string, FakeHandler>();
  private readonly counts = new Map<string, number>();
  private readonly urlCounts = new Map<string, number>();
  private app: FastifyInstance | undefined;
  url = '';

  /** `on('GET /payouts/:id', handler)`; the key is the method plus the path pattern with `:param`s. */
  on(route: string, handler: FakeHandler): this {
    this.handlers.set(route, handler);
    return this;
  }

  count(route: string): number {
    return this.counts.get(route) ?? 0;
  }

  requestsTo(route: string): RecordedRequest[] {
    const [method, pattern] = route.split(' ') as [string, string];
    const re = new RegExp(`^${pattern.replace(/[.!]/g, '\\$&').replace(/:[a-z]+/gi, '[^/?]+')}(\\?.*)?$`);
    return this.requests.filter((r) => r.method === method && re.test(r.url));
  }

  async start(): Promise<string> {
    const app = Fastify({ logger: false });
    app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    const routes = new Set([...this.handlers.keys()].map((k) => k.split(' ')[1]!));
    for (const path of routes) {
      app.all(path, async (req, reply) => {
        const recorded: RecordedRequest = { method: req.method, url: req.url, headers: req.headers, body: typeof req.body === 'string' ? req.body : '' };
        this.requests.push(recorded);
        const key = `${req.method} ${path}`;
        const handler = this.handlers.get(key);
        this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
        // Handlers see how often this exact URL was asked for, so scripts can fail "the first time".
        const n = (this.urlCounts.get(`${req.method} ${req.url}`) ?? 0) + 1;
        this.urlCounts.set(`${req.method} ${req.url}`, n);
        if (!handler) return reply.code(405).send({ error: { code: 'METHOD_NOT_ALLOWED', message: `no ${key}` } });
        const answer = await handler(recorded, n);
        reply.code(answer.status ?? 200);
        for (const [h, v] of Object.entries(answer.headers ?? {})) reply.header(h, v);
        if (answer.text !== undefined) return reply.type('text/plain').send(answer.text);
        return reply.type('application/json').send(JSON.stringify(answer.body ?? {}));
      });
    }
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    this.app = app;
    this.url = `http://127.0.0.1:${address.port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    await this.app?.close();
  }
}

/** Standard token route: answers a fresh JWT each time, counting calls. */
export function tokenRoute(validitySecs = 600): FakeHandler {
  return async (_req, n) => ({ body: { token: await fakeJwt({ sub: 'M1', ops: [], n }, validitySecs), expiresAt: new Date(Date.now() + validitySecs * 1000).toISOString() } });
}

export interface ClientFixture {
  ctx: AppContext;
  profileId: string;
  home: string;
  keyStore: MemoryKeyStore;
}

/** A context with one profile pointing at `baseUrl` and a generated 2048-bit key. */
export async function clientFixture(baseUrl: string, profile: { rateLimitPerSec?: number; timestampUnit?: 'ms' | 's' } = {}): Promise<ClientFixture> {
  const home = mkdtempSync(join(tmpdir(), 'desk-gw-'));
  const keyStore = new MemoryKeyStore();
  const ctx = createAppContext({ home, keyStore, fetchTimeoutMs: 2000 });
  const p = ctx.profiles.add({ name: 'Test', baseUrl, merchantCode: 'M1', rateLimitPerSec: profile.rateLimitPerSec ?? 100, timestampUnit: profile.timestampUnit ?? 'ms' });
  await ctx.keys.generateKey(p.id, 2048);
  return { ctx, profileId: p.id, home, keyStore };
}

export function otherRsaKey(): KeyObject {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
}
