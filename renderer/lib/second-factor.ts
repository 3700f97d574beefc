// When the screens ask for a code of the person's second factor (an authenticator app), worked out from
// main's view of it. Main decides and refuses without one; these only spare a round trip and a passphrase
// typed for nothing.
import type { IpcError, SecondFactorView } from '../../contract/api';

export type GuardedAction = 'approve' | 'admin';

/** The shape main accepts (contract/schemas.ts): 6 digits, or a recovery code such as ABCDE-23456. */
const CODE = /^(\d{6}|[A-Za-z0-9]{5}-?[A-Za-z0-9]{5})$/;

export function isCodeShape(typed: string): boolean {
  return CODE.test(typed.trim());
}

/** The last code typed at this desk still covers the person's actions (main keeps it 5 minutes). */
export function covered(view: SecondFactorView | null, now = Date.now()): boolean {
  const until = view?.verifiedUntil ? Date.parse(view.verifiedUntil) : NaN;
  return Number.isFinite(until) && until > now;
}

/** Longest delay setTimeout keeps (about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * How long until the last code typed stops covering the person, for a timer that refreshes the screen then;
 * null when no code covers them now. A little after the instant itself, so `covered` is false when it fires.
 */
export function msUntilUncovered(view: SecondFactorView | null, now = Date.now(), slackMs = 250): number | null {
  if (!covered(view, now)) return null;
  return Math.min(Date.parse(view!.verifiedUntil!) - now + slackMs, MAX_TIMER_MS);
}

/** The action asks for a code now: main says it is asked, and no code typed lately covers it. */
export function codeNeeded(view: SecondFactorView | null, action: GuardedAction, now = Date.now()): boolean {
  if (!view?.personId) return false;
  const asked = action === 'approve' ? view.onApprove : view.onAdmin;
  return asked && !covered(view, now);
}

/** The action asks for a code, but the person has none set up at this desk: main will refuse it. */
export function enrolmentMissing(view: SecondFactorView | null, action: GuardedAction): boolean {
  if (!view?.personId || view.enrolled) return false;
  return action === 'approve' ? view.onApprove : view.onAdmin;
}

/** Main's answers that mean "type a (new) code" rather than "something else is wrong". */
export function asksForCode(error: IpcError | null): boolean {
  return error !== null && ['SECOND_FACTOR_REQUIRED', 'SECOND_FACTOR_WRONG', 'SECOND_FACTOR_REPLAYED'].includes(error.code);
}

export function isNotEnrolled(error: IpcError | null): boolean {
  return error?.code === 'SECOND_FACTOR_NOT_ENROLLED';
}
