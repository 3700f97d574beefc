// Status classification. The interface names only SUCCESS; DESIGN.md §3 fixes the house default
// for final values. Any value not in the final set (including one never seen before) is kept,
// shown and polled again.

export const DEFAULT_FINAL_STATUSES = ['SUCCESS', 'FAILED', 'REJECTED', 'CANCELLED', 'EXPIRED', 'RETURNED'] as const;

/**
 * Final gateway statuses in which no money left the merchant (or it came back): only an intent whose
 * every attempt ended in one of these may be tried again under a new id.
 */
export const NOT_PAID_STATUSES = ['FAILED', 'REJECTED', 'CANCELLED', 'EXPIRED', 'RETURNED'] as const;

/** Final statuses that can still change later (a paid payout can be returned): read again for a while. */
export const RECHECKED_STATUSES = ['SUCCESS'] as const;

/** Client-side life of a payout before the gateway reports its own status. */
export const LOCAL_STATES = ['DRAFT', 'QUEUED', 'SENDING', 'ACCEPTED'] as const;
export type LocalState = (typeof LOCAL_STATES)[number];

export function isFinalStatus(status: string, finalStatuses: readonly string[] = DEFAULT_FINAL_STATUSES): boolean {
  return finalStatuses.includes(status.toUpperCase());
}

export function isSuccessStatus(status: string): boolean {
  return status.toUpperCase() === 'SUCCESS';
}

export type StatusSource = 'create' | 'poll' | 'callback' | 'local';

/**
 * A payout the gateway may already hold: anything unsent but a QUEUED row with no try of unknown outcome. Its
 * next create is a re-send of the same id (never a new payment), and it is checked as one.
 */
export function mayBeAtGateway(row: { state: string; unknownSince: number | null }): boolean {
  return row.state !== 'QUEUED' || row.unknownSince !== null;
}
