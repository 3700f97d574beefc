// Authentication: token requests (signature or deprecated secret, timestamp skew) and the JWTs issued for
// them (jose, HS256 with the sandbox's own key), with the checks every API request needs.
import { createHash, timingSafeEqual, verify } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import { z } from 'zod';
import { SandboxError } from './errors';
import { MoneySchema, TOKEN_ACTIONS, type TokenAction, type WireMoney } from './schemas';
import type { MerchantState } from './store';

export const TokenClaimsSchema = z.object({
  sub: z.string(),
  iat: z.number(),
  exp: z.number(),
  ops: z.array(z.string()),
  act: z.enum(TOKEN_ACTIONS).optional(),
  idPayment: z.string().optional(),
  money: MoneySchema.optional(),
});
export type TokenClaims = z.output<typeof TokenClaimsSchema>;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The body must already be minified JSON: re-serialising the parsed value must give the same bytes. */
export function assertMinified(raw: Buffer, parsed: unknown): void {
  if (JSON.stringify(parsed) !== raw.toString('utf8')) {
    throw new SandboxError(
      'BODY_NOT_MINIFIED',
      'token request body must be minified JSON (no whitespace between tokens), exactly as it was signed',
    );
  }
}

/**
 * Proves the caller speaks for the merchant: an X-SIGNATURE (SHA256withRSA over the exact body bytes) valid
 * under any registered key, or else the deprecated secret in the body.
 */
export function authenticateTokenRequest(
  merchant: MerchantState,
  raw: Buffer,
  signatureHeader: string | undefined,
  secret: string | undefined,
): 'signature' | 'secret' {
  if (signatureHeader !== undefined) {
    const signature = signatureHeader.trim();
    if (!BASE64.test(signature)) throw new SandboxError('INVALID_SIGNATURE', 'X-SIGNATURE is not base64');
    const bytes = Buffer.from(signature, 'base64');
    if (merchant.publicKeys.length === 0) {
      throw new SandboxError('INVALID_SIGNATURE', `merchant ${merchant.code} has no registered public key`);
    }
    const valid = merchant.publicKeys.some((key) => verify('sha256', raw, key, bytes));
    if (!valid) {
      throw new SandboxError('INVALID_SIGNATURE', 'X-SIGNATURE does not verify against any public key of the merchant');
    }
    return 'signature';
  }
  if (secret !== undefined) {
    if (merchant.secret === undefined || !sameSecret(secret, merchant.secret)) {
      throw new SandboxError('INVALID_SECRET', 'the secret does not match the merchant');
    }
    return 'secret';
  }
  throw new SandboxError('MISSING_CREDENTIALS', 'send an X-SIGNATURE header or (deprecated) a secret in the body');
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Timestamps above 1e11 are epoch milliseconds, below are seconds (1e11 s is the year 5138). */
export function assertFreshTimestamp(timestamp: number, skewSecs: number, now = Date.now()): void {
  const ms = timestamp > 1e11 ? timestamp : timestamp * 1_000;
  const offsetSecs = Math.abs(now - ms) / 1_000;
  if (offsetSecs > skewSecs) {
    throw new SandboxError(
      'TIMESTAMP_SKEW',
      `timestamp is ${Math.round(offsetSecs)} s away from the sandbox clock; at most ${skewSecs} s is accepted`,
    );
  }
}

/** Operations granted by an action token, limited to its payment id (ids are [A-Za-z0-9_-], regex-safe). */
export function operationsForAction(action: TokenAction, idPayment: string): string[] {
  if (action === 'PAYIN_INFO') return [`GET /payins/${idPayment}`];
  return ['POST /payins/!availablePaymentOptions', `POST /payins/${idPayment}`, `GET /payins/${idPayment}`];
}

/** Compiles operation patterns, anchored on the whole `METHOD /path`; an invalid regex is a 400. */
export function compileOperations(operations: string[]): RegExp[] {
  return operations.map((operation) => {
    try {
      return new RegExp(`^(?:${operation})$`);
    } catch {
      throw new SandboxError('VALIDATION_FAILED', `operation "${operation}" is not a valid regular expression`);
    }
  });
}

export type IssuedToken = { token: string; expiresAt: string };

type VerifiedToken = { claims: TokenClaims; patterns: RegExp[] };

const VERIFIED_CACHE_LIMIT = 10_000;

export class TokenService {
  private readonly key: Uint8Array;
  /**
   * Tokens already verified, by their exact text. A token is immutable, so only its expiry needs checking again;
   * this keeps HMAC, JSON and regex work off the hot path of repeated calls.
   */
  private readonly verified = new Map<string, VerifiedToken>();

  constructor(signingSecret: string) {
    this.key = new TextEncoder().encode(signingSecret);
  }

  async issue(claims: Omit<TokenClaims, 'iat' | 'exp'>, validitySecs: number): Promise<IssuedToken> {
    const iat = Math.floor(Date.now() / 1_000);
    const exp = iat + validitySecs;
    const payload: Record<string, unknown> = { ops: claims.ops };
    if (claims.act) payload.act = claims.act;
    if (claims.idPayment) payload.idPayment = claims.idPayment;
    if (claims.money) payload.money = claims.money;
    const token = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.key);
    return { token, expiresAt: new Date(exp * 1_000).toISOString() };
  }

  /** Verifies the Authorization header value and returns the claims; 401 on anything wrong. */
  async verifyAuthorization(header: string | undefined): Promise<VerifiedToken> {
    if (!header) throw new SandboxError('MISSING_TOKEN', 'Authorization: Bearer <token> is required');
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    if (!match?.[1]) throw new SandboxError('INVALID_TOKEN', 'Authorization must be "Bearer <token>"');
    const token = match[1];
    const known = this.verified.get(token);
    if (known) {
      // Same rule as jose: expired once the clock reaches exp (no tolerance).
      if (Math.floor(Date.now() / 1_000) >= known.claims.exp) {
        this.verified.delete(token);
        throw new SandboxError('TOKEN_EXPIRED', 'the token has expired');
      }
      return known;
    }
    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new SandboxError('TOKEN_EXPIRED', 'the token has expired');
      throw new SandboxError('INVALID_TOKEN', 'the token is not valid');
    }
    const parsed = TokenClaimsSchema.safeParse(payload);
    if (!parsed.success) throw new SandboxError('INVALID_TOKEN', 'the token lacks the sandbox claims');
    const entry = { claims: parsed.data, patterns: compileOperations(parsed.data.ops) };
    if (this.verified.size >= VERIFIED_CACHE_LIMIT) this.verified.clear();
    this.verified.set(token, entry);
    return entry;
  }
}

export function assertOperationAllowed(patterns: RegExp[], method: string, path: string): void {
  const operation = `${method} ${path}`;
  if (!patterns.some((pattern) => pattern.test(operation))) {
    throw new SandboxError('OPERATION_NOT_ALLOWED', `the token does not allow ${operation}`);
  }
}

/** A token limited to money only permits that exact amount and currency. */
export function assertMoneyAllowed(limit: WireMoney | undefined, requested: WireMoney): void {
  if (!limit) return;
  if (limit.currencyCode !== requested.currencyCode || limit.amount !== requested.amount) {
    throw new SandboxError(
      'MONEY_LIMIT_EXCEEDED',
      `the token is limited to ${limit.amount} ${limit.currencyCode}; the request asks ${requested.amount} ${requested.currencyCode}`,
    );
  }
}
