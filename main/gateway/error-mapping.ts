// Turns an HTTP answer or a transport failure into a GatewayError. The gateway's error body shape is
// not documented, so code and message are looked for in every plausible place; whatever the gateway
// says is passed through the log redaction first, so an echoed token or secret never travels on.
import { redactText } from '../log';
import { GatewayError, type GatewayErrorKind } from './errors';

export interface ErrorContext {
  /** A label such as "createPayout", for messages. */
  operation: string;
  /** The route addresses one payment id, so a plain 404 means "no such payment". */
  idRoute: boolean;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === 'string' && v.trim()) return v.trim();
  return undefined;
}

/** Extracts `{ code, message }` from `{error:{code,message}}`, `{code,message}`, `{errors:[…]}`, `{error:"…"}`, problem+json… */
export function errorBodyFields(body: unknown): { code?: string; message?: string } {
  if (typeof body === 'string') return body.trim() ? { message: body.trim().slice(0, 300) } : {};
  const root = asRecord(body);
  if (!root) return {};
  const nested = asRecord(root.error);
  const firstError = Array.isArray(root.errors) ? asRecord(root.errors[0]) : undefined;
  const code = firstString(nested?.code, root.code, root.errorCode, firstError?.code, typeof root.error === 'string' && /^[A-Z0-9_]+$/.test(root.error) ? root.error : undefined);
  const message = firstString(
    nested?.message,
    root.message,
    root.errorMessage,
    firstError?.message,
    root.detail,
    root.title,
    typeof root.error === 'string' ? root.error : undefined,
  );
  return { ...(code ? { code } : {}), ...(message ? { message } : {}) };
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now: number = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text === 'number' && Number.isFinite(text)) return Math.max(0, text * 1000);
  if (typeof text !== 'string' || !text.trim()) return undefined;
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.max(0, Math.ceil(Number(text.trim()) * 1000));
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function kindForStatus(status: number, code: string | undefined, ctx: ErrorContext): GatewayErrorKind {
  if (status === 404) {
    if (code === 'UNSUPPORTED_VERSION') return 'unsupported-version';
    return ctx.idRoute ? 'not-found' : 'unsupported-version';
  }
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate-limited';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 408 || status === 504) return 'timeout';
  if (status >= 500) return 'server';
  if (status >= 400) return 'validation';
  return 'bad-response';
}

const KIND_TEXT: Record<GatewayErrorKind, string> = {
  'unsupported-version': 'the gateway does not support this API version or route',
  'not-found': 'the gateway has no such payment',
  conflict: 'the gateway already accepted this id',
  'rate-limited': 'too many requests; the gateway did not process this one',
  unauthorized: 'the gateway refused the credentials',
  forbidden: 'the token does not allow this operation',
  validation: 'the gateway rejected the request',
  server: 'the gateway had an internal error',
  timeout: 'the gateway did not answer in time',
  network: 'the gateway could not be reached',
  'bad-response': 'the gateway answered with an unexpected body',
};

/** A GatewayError for a non-2xx answer. */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers: Record<string, unknown>,
  ctx: ErrorContext,
): GatewayError {
  const { code, message } = errorBodyFields(body);
  const kind = kindForStatus(status, code, ctx);
  const said = message ? `: ${redactText(message)}` : '';
  const codeText = code ? ` ${redactText(code)}` : '';
  const retryAfterMs = status === 429 ? (parseRetryAfter(headers['retry-after']) ?? 1000) : parseRetryAfter(headers['retry-after']);
  return new GatewayError(kind, `${ctx.operation}: ${KIND_TEXT[kind]} (HTTP ${status}${codeText})${said}`, {
    status,
    ...(code ? { code: redactText(code) } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    operation: ctx.operation,
  });
}

/** A GatewayError for a request that got no HTTP answer at all. */
export function errorFromTransport(error: unknown, ctx: ErrorContext, timeoutMs: number): GatewayError {
  if (error instanceof GatewayError) return error;
  // axios' errors carry node's code (ECONNRESET…) or their own (ECONNABORTED, ETIMEDOUT) in the same field.
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') {
    return new GatewayError('timeout', `${ctx.operation}: ${KIND_TEXT.timeout} (no answer within ${timeoutMs} ms)`, {
      code: 'TIMEOUT',
      operation: ctx.operation,
    });
  }
  const sysCode = typeof code === 'string' ? code : 'NETWORK';
  return new GatewayError('network', `${ctx.operation}: ${KIND_TEXT.network} (${sysCode})`, { code: sysCode, operation: ctx.operation });
}

/** A 2xx whose body is not what the interface promises. */
export function badResponse(ctx: ErrorContext, status: number, problem: string): GatewayError {
  return new GatewayError('bad-response', `${ctx.operation}: ${KIND_TEXT['bad-response']} (HTTP ${status}): ${redactText(problem)}`, {
    status,
    code: 'BAD_RESPONSE',
    operation: ctx.operation,
  });
}

/**
 * An answer cut off at the size cap. Not an answer at all: a create that meets it has an unknown outcome
 * (the gateway may have stored the payout) and is settled by reading it back, never sent under a new id.
 */
export function answerTooLarge(ctx: ErrorContext, maxBytes: number): GatewayError {
  return new GatewayError('bad-response', `${ctx.operation}: gateway answer larger than ${maxBytes} bytes; the rest was not read`, {
    code: 'ANSWER_TOO_LARGE',
    operation: ctx.operation,
  });
}

/**
 * True for axios' own "maxContentLength size of N exceeded" failure. axios marks its errors with isAxiosError
 * (what axios.isAxiosError reads): checked that way, this module does not load axios (main/gateway/transport.ts
 * loads it at the first request, so a CLI command that sends nothing starts without it).
 */
export function isAnswerTooLarge(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { isAxiosError?: unknown; code?: unknown; message?: unknown };
  return e.isAxiosError === true && e.code === 'ERR_BAD_RESPONSE' && typeof e.message === 'string' && /maxContentLength/i.test(e.message);
}
