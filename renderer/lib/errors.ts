// The one error helper: turns an error code from main into a message a finance user can act on.
// Unknown codes fall back to main's own message, which is already specific (it never carries secrets).
import type { IpcError } from '../../contract/api';

export type DeskError = IpcError;

const HINTS: Readonly<Record<string, string>> = {
  UNSUPPORTED_VERSION: "The gateway does not accept this API version. Check the profile's API version.",
  UNAUTHORIZED: 'The gateway refused the credentials. Check that the public key is registered for this merchant.',
  FORBIDDEN: 'The token does not allow this operation.',
  RATE_LIMITED: 'The gateway is busy (rate limit). Try again in a moment.',
  NETWORK: 'The gateway could not be reached. Check the base URL and the network.',
  TIMEOUT: 'The gateway did not answer in time.',
  SERVER: 'The gateway reported an internal error.',
  CONFLICT: 'The gateway already has a payment with this id.',
  NOT_FOUND: 'Not found.',
  INVALID_ARGUMENT: 'Some fields need attention.',
  NO_PROFILE: 'Choose or create a profile first.',
  NO_KEY: 'This profile has no active key. Generate or import one in Settings.',
  NOT_AVAILABLE: 'This is not available for the current profile.',
};

/** The text shown to the user for an error result: main's specific message, with a hint where we have one. */
export function describeError(error: DeskError): string {
  const key = error.code.toUpperCase().replace(/-/g, '_');
  const hint = HINTS[key];
  const issues = error.issues?.length ? ` ${error.issues.map((i) => `${i.field}: ${i.message}`).join('; ')}` : '';
  if (!hint) return `${error.message}${issues}`;
  if (!error.message || error.message === hint) return `${hint}${issues}`;
  return `${error.message}${issues} — ${hint}`;
}

/** Exceptions thrown by the bridge itself (not Result errors) become a DeskError too. */
export function errorFromException(e: unknown): DeskError {
  const message = e instanceof Error ? e.message : String(e);
  return { code: 'BRIDGE', message: `The desk could not reach its main process: ${message}`, retryable: true };
}
