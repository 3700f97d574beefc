// Auth tokens. The general token asks for exactly the operations this app performs (anchored
// `METHOD /path-regex` entries), is cached until shortly before its `exp`, and is fetched by one
// request however many callers wait. Token requests are signed (SHA256withRSA over the exact
// minified body, X-SIGNATURE) or, if the profile opts in, carry the deprecated secret.
// Rule: tokens are returned to callers inside main only; they are never logged or put in errors.
import { decodeJwt, type JWTPayload } from 'jose';
import { z } from 'zod';
import { lazy } from '../lazy';
import type { RequestSigner } from '../keys/key-custody';
import type { Logger } from '../log';
import type { TimestampUnit } from '../profiles/profile-schema';
import { badResponse } from './error-mapping';
import { GatewayError } from './errors';
import { minifiedJson, type JsonBodyValue } from './json-body';
import type { GatewayRequest, GatewayResponse } from './transport';

export type TokenCredentials = { kind: 'signature'; signer: RequestSigner } | { kind: 'secret'; secret: string };

export const ID_PATTERN_SOURCE = '[A-Za-z0-9_-]{1,64}';

/** Exactly the operations the desk performs; nothing broader (no `.*`). */
export function appOperations(accountDataPath: string): string[] {
  const id = ID_PATTERN_SOURCE;
  const accountData = accountDataPath
    .split('{idPayin}')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join(id);
  return [
    `POST /payouts/${id}`,
    `GET /payouts/${id}`,
    'POST /payins/!availablePaymentOptions',
    `POST /payins/${id}`,
    `GET /payins/${id}`,
    `GET ${accountData}`,
    'GET /merchant-info',
    'POST /merchant-info',
    'GET /balances',
    'GET /currencies',
    'GET /payment-operators',
  ];
}

const TokenResponseSchema = lazy(() =>
  z.looseObject({
    token: z.string().min(1).optional(),
    accessToken: z.string().min(1).optional(),
    access_token: z.string().min(1).optional(),
    expiresAt: z.string().optional(),
  }),
);

export interface IssuedToken {
  token: string;
  claims: JWTPayload;
  /** Epoch ms after which the token must not be used. */
  expiresAtMs: number;
}

export interface TokenManagerDeps {
  merchantCode: string;
  timestampUnit: TimestampUnit;
  validitySecs: number;
  operations: string[];
  credentials: () => Promise<TokenCredentials>;
  send: (request: GatewayRequest) => Promise<GatewayResponse>;
  logger: Logger;
  now?: () => number;
}

export class TokenManager {
  private cached: IssuedToken | undefined;
  private inFlight: Promise<IssuedToken> | undefined;
  private readonly now: () => number;

  constructor(private readonly deps: TokenManagerDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** A valid general token: the cached one, the one being fetched, or a new one. */
  async token(): Promise<string> {
    return (await this.current()).token;
  }

  /** Decoded claims of the general token (for display); the token itself stays here. */
  async claims(): Promise<JWTPayload> {
    return (await this.current()).claims;
  }

  /** Drops the cached token if it is still the given one (after a 401 with it). */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  /** A token limited to one payin (PAYIN_CREATE or PAYIN_INFO), never cached. */
  async byAction(fields: { action: 'PAYIN_CREATE' | 'PAYIN_INFO'; idPayment: string; validitySecs: number; money?: JsonBodyValue }): Promise<IssuedToken> {
    return this.issue('/auth-tokens-by-action', 'createPayinToken', {
      merchantCode: this.deps.merchantCode,
      validitySecs: fields.validitySecs,
      action: fields.action,
      idPayment: fields.idPayment,
      money: fields.money,
    });
  }

  private async current(): Promise<IssuedToken> {
    const cached = this.cached;
    if (cached && this.now() < cached.expiresAtMs - this.refreshMarginMs(cached)) return cached;
    this.inFlight ??= this.issue('/auth-tokens', 'createToken', {
      merchantCode: this.deps.merchantCode,
      validitySecs: this.deps.validitySecs,
      operations: this.deps.operations,
    })
      .then((issued) => {
        this.cached = issued;
        return issued;
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  /** Refresh when 10 % of the lifetime is left, at least 5 s and at most 60 s before `exp`. */
  private refreshMarginMs(t: IssuedToken): number {
    const issuedAtMs = typeof t.claims.iat === 'number' ? t.claims.iat * 1000 : t.expiresAtMs - this.deps.validitySecs * 1000;
    return Math.min(60_000, Math.max(5_000, (t.expiresAtMs - issuedAtMs) / 10));
  }

  private async issue(path: string, operation: string, fields: Record<string, JsonBodyValue>): Promise<IssuedToken> {
    const credentials = await this.deps.credentials();
    const nowMs = this.now();
    const timestamp = this.deps.timestampUnit === 's' ? Math.floor(nowMs / 1000) : nowMs;
    const body = minifiedJson({ ...fields, timestamp, ...(credentials.kind === 'secret' ? { secret: credentials.secret } : {}) });
    const headers: Record<string, string> = credentials.kind === 'signature' ? { 'X-SIGNATURE': credentials.signer.sign(body) } : {};
    const request: GatewayRequest = { method: 'POST', path, body, headers, lane: 'token', idempotent: true, operation, idRoute: false };
    let response: GatewayResponse;
    try {
      response = await this.deps.send(request);
    } catch (e) {
      if (e instanceof GatewayError && e.kind === 'unauthorized') {
        const how = credentials.kind === 'signature'
          ? `signed with key ${credentials.signer.keyId} (fingerprint ${credentials.signer.fingerprint}); check that this public key is registered for merchant ${this.deps.merchantCode} and the clock is right`
          : `using the deprecated merchant secret; check the secret stored for merchant ${this.deps.merchantCode}`;
        throw new GatewayError('unauthorized', `${e.message}. The token request was ${how}`, e.details);
      }
      throw e;
    }
    const parsed = TokenResponseSchema().safeParse(response.data);
    const token = parsed.success ? (parsed.data.token ?? parsed.data.accessToken ?? parsed.data.access_token) : undefined;
    if (!token) throw badResponse(request, response.status, 'no token (expected "token", "accessToken" or "access_token")');
    let claims: JWTPayload;
    try {
      claims = decodeJwt(token);
    } catch {
      throw badResponse(request, response.status, 'the token is not a decodable JWT');
    }
    const fromBody = parsed.success && parsed.data.expiresAt ? Date.parse(parsed.data.expiresAt) : Number.NaN;
    const expiresAtMs = typeof claims.exp === 'number'
      ? claims.exp * 1000
      : Number.isFinite(fromBody)
        ? fromBody
        : nowMs + this.deps.validitySecs * 1000;
    this.deps.logger.info('gateway token issued', { operation, expiresAt: new Date(expiresAtMs).toISOString() });
    return { token, claims, expiresAtMs };
  }
}
