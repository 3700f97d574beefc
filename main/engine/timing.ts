// Waiting rules of the engine: capped exponential backoff for sends, growing poll intervals, rechecks.
import { RECHECKED_STATUSES } from '../domain/status';

export interface BackoffOptions {
  /** First retry delay (default 500 ms). */
  baseMs: number;
  /** Longest delay between two attempts (default 30 s). */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, capMs: 30_000 };

/**
 * Delay before retry number `attempt` (1-based): base × 2^(attempt-1), capped, with "equal jitter"
 * (between half and all of it) so many payouts failing together do not retry in lockstep.
 * A Retry-After from the gateway is a floor.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, retryAfterMs = 0, random: () => number = Math.random): number {
  const exp = Math.min(options.capMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = exp / 2 + (exp / 2) * random();
  return Math.max(Math.round(jittered), retryAfterMs);
}

/**
 * Poll interval for a payment accepted `ageMs` ago: the base interval for the first minute, then
 * 3×, 12× and finally 60× the base (capped at one hour), so old payments stuck in a non-final
 * status cost little of the rate budget.
 */
export function pollInterval(ageMs: number, baseMs: number): number {
  const factor = ageMs < 60_000 ? 1 : ageMs < 600_000 ? 3 : ageMs < 3_600_000 ? 12 : 60;
  return Math.min(baseMs * factor, Math.max(baseMs, 3_600_000));
}

/** After a paid payout's final status, when it is read again: it may still be returned. */
const RECHECK_AFTER_MS = [60_000, 600_000, 3_600_000, 6 * 3_600_000, 24 * 3_600_000, 72 * 3_600_000, 7 * 24 * 3_600_000];

/**
 * When a payment is next read with GET, given what was just observed: soon while it moves, on the
 * recheck schedule (from `finalAt`) while a final status may still change, never after that.
 */
export function nextReadAt(o: { status: string; final: boolean; now: number; ageMs: number; finalAt: number | null; baseMs: number }): number | null {
  if (!o.final) return o.now + pollInterval(o.ageMs, o.baseMs);
  if (!(RECHECKED_STATUSES as readonly string[]).includes(o.status)) return null;
  const from = o.finalAt ?? o.now;
  const delay = RECHECK_AFTER_MS.find((d) => from + d > o.now);
  return delay === undefined ? null : from + delay;
}

/** Resolves after `ms`, or at once (false) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
