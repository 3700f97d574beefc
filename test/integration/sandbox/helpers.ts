// Test client for the sandbox: real RSA keys, requests signed with node:crypto, nothing from main/.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type SandboxConfigInput, type SandboxHandle } from '../../../sandbox/index';

export const MERCHANT = 'DEMO-MERCHANT';
export const SIGNING_SECRET = 'test-signing-secret-0123456789-abcdefghij';

export type TestKeys = { privateKey: KeyObject; publicPem: string };

export function rsaKeys(): TestKeys {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

export function signBody(bytes: string, key: KeyObject): string {
  return sign('sha256', Buffer.from(bytes, 'utf8'), key).toString('base64');
}

/** Fast timings, no rate limit, a known JWT key: each test file overrides what it exercises. */
export function testConfig(overrides: SandboxConfigInput = {}): SandboxConfigInput {
  return {
    rateLimitPerSecond: null,
    timings: { payoutPendingMs: 30, payoutProcessingMs: 30, payinExpiryMs: 60_000 },
    callbackRetry: { maxAttempts: 4, initialDelayMs: 20, factor: 2, maxDelayMs: 200, timeoutMs: 1_000 },
    tokens: { signingSecret: SIGNING_SECRET },
    ...overrides,
  };
}

export type ApiResponse = { status: number; headers: Headers; body: unknown; text: string };

export type RequestOptions = {
  token?: string;
  /** An object is sent as minified JSON; a string is sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  version?: string | null;
};

export class SandboxClient {
  constructor(
    readonly sandbox: SandboxHandle,
    readonly keys: TestKeys,
    readonly merchantCode = MERCHANT,
  ) {}

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.version !== null) headers['x-api-version'] = options.version ?? '2';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.sandbox.url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  /** POSTs a token request signed over the exact bytes sent. */
  signedTokenRequest(
    path: '/auth-tokens' | '/auth-tokens-by-action',
    body: Record<string, unknown>,
    options: { key?: KeyObject; rawBody?: string; signature?: string } = {},
  ): Promise<ApiResponse> {
    const raw = options.rawBody ?? JSON.stringify(body);
    const signature = options.signature ?? signBody(raw, options.key ?? this.keys.privateKey);
    return this.request('POST', path, { body: raw, headers: { 'x-signature': signature } });
  }

  async token(operations: string[] = ['(GET|POST) /.*'], extra: Record<string, unknown> = {}): Promise<string> {
    const response = await this.signedTokenRequest('/auth-tokens', {
      merchantCode: this.merchantCode,
      validitySecs: 600,
      operations,
      timestamp: Date.now(),
      ...extra,
    });
    if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${response.text}`);
    return (response.body as { token: string }).token;
  }

  async actionToken(action: 'PAYIN_CREATE' | 'PAYIN_INFO', idPayment: string, extra: Record<string, unknown> = {}) {
    const response = await this.signedTokenRequest('/auth-tokens-by-action', {
      merchantCode: this.merchantCode,
      validitySecs: 600,
      action,
      idPayment,
      timestamp: Date.now(),
      ...extra,
    });
    if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${response.text}`);
    return (response.body as { token: string }).token;
  }
}

let sharedKeys: TestKeys | undefined;

/** One key pair per test file: generating RSA keys costs ~100 ms each. */
export function testKeys(): TestKeys {
  sharedKeys ??= rsaKeys();
  return sharedKeys;
}

export async function startWithClient(
  overrides: SandboxConfigInput = {},
  keys: TestKeys = testKeys(),
): Promise<SandboxClient> {
  const sandbox = await startSandbox(testConfig(overrides));
  sandbox.registerPublicKey(MERCHANT, keys.publicPem);
  return new SandboxClient(sandbox, keys);
}

export function payoutBody(overrides: { amount?: number; currencyCode?: string; accountNumber?: string } = {}) {
  const currencyCode = overrides.currencyCode ?? 'EUR';
  const operators: Record<string, string> = { EUR: 'EU_SEPA', USD: 'US_ACH', GBP: 'UK_FPS', JPY: 'JP_ZENGIN' };
  return {
    paymentRequested: { money: { amount: overrides.amount ?? 1250.5, currencyCode } },
    paymentMethod: {
      paymentMethodCode: 'BANK_TRANSFER',
      paymentOperatorCode: operators[currencyCode] ?? 'EU_SEPA',
      account: { accountName: 'Ada Lovelace', accountNumber: overrides.accountNumber ?? 'DE89370400440532013001' },
      emailAddress: 'ada@example.com',
    },
  };
}

export function payinBody(overrides: { amount?: number; accountNumber?: string; callbackUrl?: string } = {}) {
  return {
    paymentRequested: { money: { amount: overrides.amount ?? 42.1, currencyCode: 'EUR' } },
    paymentMethod: {
      paymentMethodCode: 'VAPAY',
      paymentOperatorCode: 'VAPAY_EU',
      account: { accountName: 'Grace Hopper', accountNumber: overrides.accountNumber ?? 'NL91ABNA0417164300' },
      emailAddress: 'grace@example.com',
    },
    returnUrl: 'https://shop.example.com/return',
    ...(overrides.callbackUrl ? { callbackUrl: overrides.callbackUrl } : {}),
  };
}

export async function waitFor<T>(probe: () => T | undefined | false, timeoutMs = 3_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export type ReceivedCallback = { body: unknown; headers: IncomingMessage['headers'] };

/** A callback receiver answering with the statuses given in order (the last one repeats). */
export async function callbackReceiver(statuses: number[] = [200]) {
  const received: ReceivedCallback[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')), headers: req.headers });
      const status = statuses[Math.min(received.length - 1, statuses.length - 1)] ?? 200;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function errorCode(response: ApiResponse): string | undefined {
  const body = response.body as { error?: { code?: string } } | undefined;
  return body?.error?.code;
}
