// Typed gateway errors. Every failure of a gateway call becomes one of these, carrying the HTTP
// status (when there was one), the gateway's error code and message, and whether a retry with the
// same request may succeed. Messages never contain a token, key or secret.
import { CodedError } from '../domain/coded-error';

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

/** Its code: the gateway's own error code when it gave one, else the kind in capitals (RATE_LIMITED, TIMEOUT…). */
export class GatewayError extends CodedError {
  readonly retryable: boolean;
  constructor(
    readonly kind: GatewayErrorKind,
    message: string,
    readonly details: { status?: number; code?: string; retryAfterMs?: number; operation?: string } = {},
  ) {
    super(details.code ?? kind.toUpperCase().replace(/-/g, '_'), message);
    this.retryable = RETRYABLE.has(kind);
  }
  get status(): number | undefined {
    return this.details.status;
  }
}

export function isGatewayError(e: unknown, kind?: GatewayErrorKind): e is GatewayError {
  return e instanceof GatewayError && (kind === undefined || e.kind === kind);
}

/**
 * A request given up by its own `beforeSend` (see GatewayRequest): it never left this machine. Not a
 * GatewayError, so nothing retries it.
 */
export class SendCancelledError extends CodedError<'SEND_CANCELLED'> {
  constructor(operation: string) {
    super('SEND_CANCELLED', `${operation}: not sent (cancelled before sending)`);
  }
}
