// Typed gateway errors. Every failure of a gateway call becomes one of these, carrying the HTTP
// status (when there was one), the gateway's error code and message, and whether a retry with the
// same request may succeed. Messages never contain a token, key or secret.

export const GATEWAY_ERROR_KINDS = [
  'unsupported-version', // 404 on a versioned route: X-API-Version missing or not supported
  'not-found', // 404 for a payment id the gateway does not have
  'conflict', // 409: the id was already accepted
  'rate-limited', // 429
  'unauthorized', // 401 after one token refresh
  'forbidden', // 403: the token does not allow the operation
  'validation', // 400 / 413 / 422: the request itself is wrong
  'server', // 5xx
  'timeout', // no answer in time
  'network', // connection refused, reset, DNS
  'bad-response', // a 2xx whose body does not have the fields we need
] as const;
export type GatewayErrorKind = (typeof GATEWAY_ERROR_KINDS)[number];

const RETRYABLE: ReadonlySet<GatewayErrorKind> = new Set(['rate-limited', 'server', 'timeout', 'network']);

export class GatewayError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly kind: GatewayErrorKind,
    message: string,
    readonly details: { status?: number; code?: string; retryAfterMs?: number; operation?: string } = {},
  ) {
    super(message);
    this.name = 'GatewayError';
    this.retryable = RETRYABLE.has(kind);
  }
  get status(): number | undefined {
    return this.details.status;
  }
  get code(): string {
    return this.details.code ?? this.kind.toUpperCase().replace(/-/g, '_');
  }
}

export function isGatewayError(e: unknown, kind?: GatewayErrorKind): e is GatewayError {
  return e instanceof GatewayError && (kind === undefined || e.kind === kind);
}

/**
 * A request given up by its own `beforeSend` (see GatewayRequest): it never left this machine. Not a
 * GatewayError, so nothing retries it.
 */
export class SendCancelledError extends Error {
  constructor(operation: string) {
    super(`${operation}: not sent (cancelled before sending)`);
    this.name = 'SendCancelledError';
  }
}
