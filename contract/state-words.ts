// One vocabulary for what a person reads about a payment or a batch, used by the renderer and the CLI
// alike (this file imports nothing, so both can load it without Electron or Vue). The journal's states
// are internal words: "ACCEPTED" only means the gateway has the payout, "COMPLETED" only means every row
// of a batch was sent. A person reads the gateway's status, or a sentence, never the bare internal word.

/** One status word for a payout, attempt or row: the gateway's status once it has it, else the desk's state. */
export function paymentStatusWord(p: { status: string; localState: string }): string {
  if (p.localState.toUpperCase() !== 'ACCEPTED') return p.localState.toUpperCase();
  return p.status.trim().toUpperCase() || 'SENT';
}

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

/** Where a payment stands, as a sentence in the same words as the status column. */
export function paymentStateText(localState: string, status = ''): string {
  const state = localState.toUpperCase();
  if (state === 'ACCEPTED') {
    const gateway = status.trim().toUpperCase();
    return gateway && gateway !== 'ACCEPTED' ? `Sent — the gateway reports ${gateway}` : "Sent — waiting for the gateway's status";
  }
  const known = DESK_STATE[state];
  if (known) return known;
  // A state this vocabulary does not know yet: a word, not an internal code in brackets.
  const word = localState.replace(/[_-]+/g, ' ').toLowerCase();
  return word.charAt(0).toUpperCase() + word.slice(1);
}

// ---- batches ------------------------------------------------------------------------------------

/** What the desk knows about a batch beyond the journal: whether a run sends it now, and the gateway's reachability. */
export interface BatchLiveState {
  /** A run of this desk sends the batch's rows right now. */
  running: boolean;
  /** Set while the gateway cannot be reached: since when (epoch ms) and the error's message. */
  unreachable?: { since: number; message: string | null } | null;
  /** A desk of a team that does not send (no merchant key here): the team's sender desks run its batches. */
  senderElsewhere?: boolean;
}

export interface BatchCountsForWords {
  state: string;
  total: number;
  pending: number;
  failed: number;
}

/**
 * The word a person reads for a batch's state, with the reason when it stopped or waits:
 * RUNNING, WAITING (gateway unreachable), STOPPED (journal says running, nothing runs it), SENT (every
 * row sent, final statuses awaited), COMPLETED (every row final), SCHEDULED (waits for its release time), PAUSED,
 * CANCELLING, CANCELLED, FAILED.
 */
export interface BatchStateWords {
  word: string;
  reason: string | null;
}

/** "10:42" in the reader's local time (a person compares it with the clock on the wall). */
export function clockTime(epochMs: number): string {
  const d = new Date(epochMs);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** "gateway unreachable since 10:42 (ECONNREFUSED)": the system code the transport put in brackets, else the message. */
export function unreachableReason(since: number, message: string | null): string {
  const code = message?.match(/\(([A-Z][A-Z0-9_]+)\)\s*$/)?.[1];
  const why = code ?? message?.replace(/^[^:]*:\s*/, '') ?? null;
  return `gateway unreachable since ${clockTime(since)}${why ? ` (${why})` : ''}`;
}

export function batchStateWords(p: BatchCountsForWords, live: BatchLiveState | null, pauseReason: string | null = null): BatchStateWords {
  const state = p.state.toUpperCase();
  if (state === 'COMPLETED') {
    return p.pending > 0 ? { word: 'SENT', reason: `every row sent; ${p.pending} of ${p.total} still wait for a final status` } : { word: 'COMPLETED', reason: null };
  }
  if (state === 'PAUSED') return { word: 'PAUSED', reason: pauseReason };
  // Its release time ("scheduled: released on 2026-12-24 09:00 Europe/Berlin"), kept where a pause keeps its reason.
  if (state === 'SCHEDULED') return { word: 'SCHEDULED', reason: pauseReason };
  if (state === 'RUNNING' && live) {
    if (!live.running && live.senderElsewhere) return { word: 'RUNNING', reason: "sent by the team's sender desks (the merchant's key is not on this desk)" };
    if (!live.running) return { word: 'STOPPED', reason: 'nothing sends it now (the desk that ran it stopped); resume it to carry on' };
    if (live.unreachable) return { word: 'WAITING', reason: unreachableReason(live.unreachable.since, live.unreachable.message) };
  }
  return { word: state, reason: state === 'FAILED' ? pauseReason : null };
}

/** "SENT (every row sent; 20 of 20 still wait for a final status)". */
export function batchStateLine(w: BatchStateWords): string {
  return w.reason ? `${w.word} (${w.reason})` : w.word;
}

/** Final = every row not still pending, so final + pending = total whatever the mix of outcomes. */
export function finalCount(p: { total: number; pending: number }): number {
  return p.total - p.pending;
}
