// Possible duplicates: payouts of the last days to the same account with the same amount and currency. One lookup
// and one sentence for the three places that warn of them: a batch import (a warning per row), a single payout
// (refused until confirmed, main/desk/possible-duplicate.ts) and an approver's view of what waits.
import type { LikePayout, LikePayoutKey } from '../journal/port';
import { accountKey } from './account-number';

/** Keys asked for at once: one statement each. */
const LOOKUP_SLICE = 2_000;
export const DAY_MS = 86_400_000;

export type LikePayoutLookup = (rows: LikePayoutKey[], since: number) => LikePayout[] | Promise<LikePayout[]>;

/** The end of an account number, enough for a person to recognise it and no more. */
export function lastDigits(accountNumber: string): string {
  const key = accountKey(accountNumber);
  return key.length > 4 ? `…${key.slice(-4)}` : key;
}

export const likeKey = (k: LikePayoutKey): string => `${k.accountNumber}\u0000${k.amountMinor}\u0000${k.currencyCode}`;

/**
 * For each key (account, amount, currency), the earliest payout since `since` like it that `skip` does not rule out
 * (the row itself, its own batch, an earlier submission of the same file): the first payment of an invoice is the
 * one to name. `between` runs after each slice of keys (the CSV check yields the event loop there).
 */
export async function earliestLikePayouts(
  lookup: LikePayoutLookup,
  keys: readonly LikePayoutKey[],
  since: number,
  skip: (like: LikePayout) => boolean = () => false,
  between: () => Promise<void> = async () => undefined,
): Promise<Map<string, LikePayout>> {
  const earliest = new Map<string, LikePayout>();
  for (let i = 0; i < keys.length; i += LOOKUP_SLICE) {
    for (const like of await lookup(keys.slice(i, i + LOOKUP_SLICE), since)) {
      if (skip(like)) continue;
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
