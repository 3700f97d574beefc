// The desk's own words for where a payment stands. Main's `localState` is one of the journal's states
// (QUEUED, SENDING, UNKNOWN, ACCEPTED, HELD, DISCARDED, MISSING, REJECTED, CANCELLED, MISMATCH); a person
// reads a sentence, never the internal word in brackets.
import type { BatchResultRow, PaymentDetail } from '../../contract/api';
import { paymentStateText } from '../../contract/state-words';

/** The states that wait for a person or for the desk, with the banner the detail shows for each. */
export interface Attention {
  type: 'warning' | 'info';
  title: string;
}

const ATTENTION: Readonly<Record<string, Attention>> = {
  HELD: { type: 'warning', title: 'Held — not sent until a person releases it' },
  UNKNOWN: { type: 'info', title: 'Outcome unknown — checking' },
  MISSING: { type: 'warning', title: 'Missing at the gateway — a person must look' },
};

/**
 * A payout sent on a date (the calendar) waits HELD with its release time as the reason until the desk releases it:
 * not something a person releases by hand (main refuses it), but moved or cancelled on the Calendar.
 */
export function isScheduled(detail: Pick<PaymentDetail, 'kind' | 'localState' | 'reason'>): boolean {
  // Main's reason: "Scheduled: released on 2026-12-28 09:00 Europe/Berlin, not before. Move or cancel it…".
  return detail.kind === 'payout' && detail.localState.toUpperCase() === 'HELD' && /\bscheduled: released on /i.test(detail.reason ?? '');
}

const SCHEDULED: Attention = { type: 'info', title: 'Scheduled — sent on its date' };

/** The banner for a payment that waits for a person or for the desk; null when nothing needs saying. */
export function attentionOf(detail: Pick<PaymentDetail, 'localState'> & Partial<Pick<PaymentDetail, 'kind' | 'reason'>>): Attention | null {
  if (isScheduled({ kind: detail.kind ?? 'payout', localState: detail.localState, reason: detail.reason ?? null })) return SCHEDULED;
  return ATTENTION[detail.localState.toUpperCase()] ?? null;
}

/** The "Desk state" line of the detail: the shared vocabulary's sentence (contract/state-words.ts, the CLI says the same). */
export const deskStateText = paymentStateText;

/** True for a payout a person can release or discard (a scheduled one is moved or cancelled on the Calendar). */
export function isHeld(detail: Pick<PaymentDetail, 'kind' | 'localState'> & Partial<Pick<PaymentDetail, 'reason'>>): boolean {
  return detail.kind === 'payout' && detail.localState.toUpperCase() === 'HELD' && !isScheduled({ ...detail, reason: detail.reason ?? null });
}

/**
 * Paid, in the sense remittance advice needs: the gateway reports SUCCESS with the time it paid (as main checks it).
 * A RETURNED payout came back and paid no one: it never counts, even though it reported SUCCESS before.
 */
export function isPaid(p: Pick<BatchResultRow, 'status' | 'processedAt'>): boolean {
  return p.status.toUpperCase() === 'SUCCESS' && p.processedAt !== null;
}

/** A payout whose payee may be sent remittance advice: paid and final (never a payin, in flight, failed or returned). */
export function canGiveAdvice(detail: Pick<PaymentDetail, 'kind' | 'status' | 'final' | 'processedAt'>): boolean {
  return detail.kind === 'payout' && detail.final && isPaid(detail);
}

/** The first 8 characters of an id (UUIDs stay recognisable); the full id goes in a title or a copy button. */
export function shortId(id: string): string {
  return id.length > 10 ? `${id.slice(0, 8)}…` : id;
}
