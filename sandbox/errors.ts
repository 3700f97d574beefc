// The one error type of the sandbox pipeline. Any stage throws it; the error handler turns it into the house
// error body (DESIGN.md §3): { "error": { "code": "…", "message": "…" } }.
import type { z } from 'zod';

export const ERROR_CODES = {
  UNSUPPORTED_VERSION: 404,
  ROUTE_NOT_FOUND: 404,
  NOT_FOUND: 404,
  MERCHANT_NOT_FOUND: 404,
  DUPLICATE_ID: 409,
  RATE_LIMITED: 429,
  MISSING_TOKEN: 401,
  INVALID_TOKEN: 401,
  TOKEN_EXPIRED: 401,
  INVALID_SIGNATURE: 401,
  INVALID_SECRET: 401,
  MISSING_CREDENTIALS: 401,
  UNKNOWN_MERCHANT: 401,
  TIMESTAMP_SKEW: 401,
  OPERATION_NOT_ALLOWED: 403,
  MONEY_LIMIT_EXCEEDED: 403,
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  BODY_NOT_MINIFIED: 400,
  INVALID_ID: 400,
  INVALID_AMOUNT: 400,
  UNKNOWN_CURRENCY: 400,
  UNKNOWN_PAYMENT_METHOD: 400,
  UNKNOWN_PAYMENT_OPERATOR: 400,
  UNKNOWN_QUERY_PARAMETER: 400,
  BODY_NOT_ALLOWED: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_STATE: 409,
  SIMULATED_FAILURE: 500,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export type ErrorBody = { error: { code: ErrorCode; message: string; details?: unknown } };

export class SandboxError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'SandboxError';
    this.status = ERROR_CODES[code];
    this.headers = headers;
  }

  body(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

/** Runs a zod schema; a failure becomes a 400 naming every bad field. */
export function parseOr400<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
  const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  throw new SandboxError('VALIDATION_FAILED', `invalid ${what}: ${summary}`, { issues });
}
