// The desk's own words for where a payment stands. Main's `localState` is one of the journal's states
// (QUEUED, SENDING, UNKNOWN, ACCEPTED, HELD, DISCARDED, MISSING, REJECTED, CANCELLED, MISMATCH); a person
// reads a sentence, never the internal word in brackets.
import type { PaymentDetail } from '../../preload/api';

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

const DESK_STATE: Readonly<Record<string, string>> = {
  QUEUED: 'Waiting to be sent',
  SENDING: 'Being sent',
  UNKNOWN: 'Outcome unknown — the desk checks with the gateway, never sends it under a new id',
  HELD: 'Held — waits for a person to release or discard it',
  DISCARDED: 'Discarded while held — never sent',
  MISSING: 'Missing — the gateway accepted it and now does not know it',
  REJECTED: 'Refused by the gateway — not paid',
  CANCELLED: 'Cancelled before it was sent — not paid',
  MISMATCH: "The gateway's copy differs from what the desk sent",
};

/** The banner for a payment that waits for a person or for the desk; null when nothing needs saying. */
export function attentionOf(detail: Pick<PaymentDetail, 'localState'>): Attention | null {
  return ATTENTION[detail.localState.toUpperCase()] ?? null;
}

/** The "Desk state" line of the detail: a sentence in the same words as the status chips. */
export function deskStateText(localState: string, status = ''): string {
  const state = localState.toUpperCase();
  if (state === 'ACCEPTED') {
    // The gateway has it: its status is the news, said in words rather than as "[local state ACCEPTED]".
    const gateway = status.trim().toUpperCase();
    return gateway && gateway !== 'ACCEPTED' ? `Sent — the gateway reports ${gateway}` : "Sent — waiting for the gateway's status";
  }
  const known = DESK_STATE[state];
  if (known) return known;
  // A state this renderer does not know yet: shown as a word, not as an internal code in brackets.
  const word = localState.replace(/[_-]+/g, ' ').toLowerCase();
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** True for a payout a person can release or discard. */
export function isHeld(detail: Pick<PaymentDetail, 'kind' | 'localState'>): boolean {
  return detail.kind === 'payout' && detail.localState.toUpperCase() === 'HELD';
}

/** The first 8 characters of an id (UUIDs stay recognisable); the full id goes in a title or a copy button. */
export function shortId(id: string): string {
  return id.length > 10 ? `${id.slice(0, 8)}…` : id;
}
