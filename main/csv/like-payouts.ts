// Possible duplicates: payouts of the last days to the same account with the same amount and currency. One lookup
// and one sentence for the three places that warn of them: a batch import (a warning per row), a single payout
// (refused until confirmed, main/desk/possible-duplicate.ts) and an approver's view of what waits.
import type { LikePayout, LikePayoutKey, LikePayoutSkip } from '../journal/port';
import { accountKey } from './account-number';
import { TimeSlicer } from './time-slice';

/**
 * Distinct keys asked for at once: one statement each, each key an index walk that stops at its first match (a few
 * rows read when the rows of the same batch come first). 500 keep a statement near 10 ms on a busy machine.
 */
const LOOKUP_SLICE = 500;
export const DAY_MS = 86_400_000;

/** The journal's earliestLikePayouts: for each key the earliest like payout since `since` that `skip` leaves in. */
export type LikePayoutLookup = (keys: LikePayoutKey[], since: number, skip: LikePayoutSkip) => LikePayout[] | Promise<LikePayout[]>;

/** A row to look up: its key, and its own id when the row is already in the journal (never like itself). */
export interface LikeRow extends LikePayoutKey {
  id?: string;
}

/** The end of an account number, enough for a person to recognise it and no more. */
export function lastDigits(accountNumber: string): string {
  const key = accountKey(accountNumber);
  return key.length > 4 ? `…${key.slice(-4)}` : key;
}

export const likeKey = (k: LikePayoutKey): string => `${k.accountNumber}\u0000${k.amountMinor}\u0000${k.currencyCode}`;

/**
 * For each distinct key (account, amount, currency) of `rows`, the earliest payout since `since` like it that is
 * neither one of the rows nor ruled out by `skip` (the rows' own batch, an earlier submission of the same file):
 * the first payment of an invoice is the one to name. The journal answers one payout per key, so a key repeated
 * over 10,000 rows and paid hundreds of times before costs one index walk. A row's own id goes with its key's slice
 * only (the journal's payout of that id has that key), so a slice carries its own ids, not all of them.
 * `between` runs before and after each statement (one per slice of keys): callers yield the event loop there, so
 * a statement never runs in one turn with the caller's work before it or after it.
 */
export async function earliestLikePayouts(
  lookup: LikePayoutLookup,
  rows: readonly LikeRow[],
  since: number,
  skip: Omit<LikePayoutSkip, 'ids'> = {},
  between: () => Promise<void> = async () => undefined,
): Promise<Map<string, LikePayout>> {
  const distinct = new Map<string, { key: LikePayoutKey; ids: string[] }>();
  // 100,000 rows' keys take about 60 ms: in slices too, with `between` as the turn given back.
  const slicer = new TimeSlicer(between);
  for (const r of rows) {
    const k = likeKey(r);
    let entry = distinct.get(k);
    if (!entry) distinct.set(k, (entry = { key: { accountNumber: r.accountNumber, amountMinor: r.amountMinor, currencyCode: r.currencyCode }, ids: [] }));
    if (r.id !== undefined) entry.ids.push(r.id);
    if (slicer.due()) await slicer.pause();
  }
  const entries = [...distinct.values()];
  const earliest = new Map<string, LikePayout>();
  for (let i = 0; i < entries.length; i += LOOKUP_SLICE) {
    const slice = entries.slice(i, i + LOOKUP_SLICE);
    if (i === 0) await between();
    const found = await lookup(slice.map((e) => e.key), since, { ...skip, ids: slice.flatMap((e) => e.ids) });
    for (const like of found) {
      const k = likeKey(like);
      const seen = earliest.get(k);
      if (!seen || like.createdAt < seen.createdAt) earliest.set(k, like);
    }
    await between();
  }
  return earliest;
}

/** What is said of a possible duplicate: which payout, when, from which file, and `what` (the amount) to which account. */
export function possibleDuplicateText(like: LikePayout, what: string, askToConfirm: boolean): string {
  const when = new Date(like.createdAt).toISOString().slice(0, 10);
  const file = like.fileName ? ` (file ${like.fileName})` : '';
  const ask = askToConfirm ? '; paying it again pays twice, so confirm only if this is a separate payment' : '';
  return `possible duplicate of payout ${like.id} of ${when}${file}: ${what} to the same account ${lastDigits(like.accountNumber)}${ask}`;
}
