// Turns anything a handler can throw into the contract's { code, message, retryable }. Messages go
// through the log redaction, so even a careless service error cannot carry a key or token out.
import { z } from 'zod';
import type { FieldIssue, IpcError } from '../../contract/api';
import { isGatewayError } from '../gateway/errors';
import { isConnectionError } from '../store/postgres/connection-error';
import { KEYCHAIN_ERROR_PREFIX, KEYCHAIN_HINT_SEPARATOR, KeyStoreError, shortKeychainHint } from '../keys/key-store';
import { redactText } from '../log';
import { DeskError } from './services';

const MAX_MESSAGE = 500;

function clean(message: string): string {
  const redacted = redactText(message).replace(/\s+/g, ' ').trim();
  return redacted.length > MAX_MESSAGE ? `${redacted.slice(0, MAX_MESSAGE - 1)}…` : redacted;
}

export function invalidArgument(message: string, issues: FieldIssue[] = []): IpcError {
  return { code: 'INVALID_ARGUMENT', message: clean(message), retryable: false, ...(issues.length > 0 ? { issues } : {}) };
}

export function notAvailable(channel: string): IpcError {
  return { code: 'NOT_AVAILABLE', message: `${channel} is not available in this build yet`, retryable: false };
}

export function issuesFromZod(error: z.ZodError): FieldIssue[] {
  return error.issues.slice(0, 50).map((issue) => ({
    field: issue.path.map(String).join('.') || '(arguments)',
    code: issue.code.toUpperCase(),
    message: clean(issue.message),
  }));
}

/** Error classes of the services carry a stable upper-case `code`; they are shown as they are. */
function codedError(error: unknown): { code: string; message: string } | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,48}$/.test(code) ? { code, message: error.message } : null;
}

const RETRYABLE_CODES = new Set(['KEYCHAIN_UNAVAILABLE', 'SANDBOX_UNAVAILABLE', 'TEAM_DB_UNREACHABLE', 'TEAM_DB_TIMEOUT', 'DATABASE_UNREACHABLE']);

export function toIpcError(error: unknown): IpcError {
  if (isGatewayError(error)) {
    const status = error.status ? ` (HTTP ${error.status})` : '';
    return { code: error.code, message: clean(`${error.message}${status}`), retryable: error.retryable };
  }
  if (error instanceof DeskError) {
    const issues = error.issues.slice(0, 200).map((i) => ({ ...i, message: clean(i.message) }));
    return { code: error.code, message: clean(error.message), retryable: error.retryable, ...(issues.length > 0 ? { issues } : {}) };
  }
  if (error instanceof z.ZodError) return invalidArgument('the request is not valid', issuesFromZod(error));
  if (error instanceof KeyStoreError) {
    // The hint is added after clipping, so the screen always shows it; the CLI prints its whole fix instead.
    const hint = shortKeychainHint(error.message);
    return { code: 'KEYCHAIN_UNAVAILABLE', message: `${clean(`${KEYCHAIN_ERROR_PREFIX}${error.message}`)}${hint ? `${KEYCHAIN_HINT_SEPARATOR}${hint}` : ''}`, retryable: true };
  }
  // A desk of a team that lost its database mid-request: said in its words, not the driver's code.
  if (isConnectionError(error)) {
    return {
      code: 'TEAM_DB_UNREACHABLE',
      message: clean(`The team database cannot be reached (${(error as Error).message}): this desk shows what it last saw and sends nothing until it is back`),
      retryable: true,
    };
  }
  const coded = codedError(error);
  if (coded) return { code: coded.code, message: clean(coded.message), retryable: RETRYABLE_CODES.has(coded.code) };
  // Anything else is a bug: the user gets a stable code, the detail goes to the (redacted) log.
  return { code: 'INTERNAL', message: 'The desk hit an unexpected problem; the details are in the log.', retryable: false };
}
