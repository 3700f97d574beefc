// One payout (New payout, `payouts create`) like one the desk sent or is sending in the profile's last
// `repeatWindowDays` days: the same account, amount and currency. The batch import flags such rows as warnings
// (main/csv/journal-checks.ts); a single payout is refused until the person confirms it is a separate payment.
import type { PossibleDuplicate } from '../../contract/api';
import { formatMinor } from '../domain/money';
import type { DeskJournal } from '../journal/port';
import { DAY_MS, earliestLikePayouts, likeKey, possibleDuplicateText } from '../csv/like-payouts';
import { mapInSlices, TimeSlicer, yieldToEventLoop } from '../csv/time-slice';
import type { DecimalsOf } from './convert';

export interface LikeDraft {
  idPayout: string;
  accountNumber: string;
  amountMinor: number;
  currencyCode: string;
}

/** The earliest earlier payout like `draft` (never itself), or null; null too when the window is 0 (off). */
export async function possibleDuplicateOf(journal: DeskJournal, draft: LikeDraft, windowDays: number, decimalsOf: DecimalsOf, now = Date.now()): Promise<PossibleDuplicate | null> {
  if (windowDays <= 0) return null;
  const row = { id: draft.idPayout, accountNumber: draft.accountNumber, amountMinor: draft.amountMinor, currencyCode: draft.currencyCode };
  const like = (await earliestLikePayouts(journal.earliestLikePayouts.bind(journal), [row], now - windowDays * DAY_MS)).get(likeKey(row));
  if (!like) return null;
  const amount = `${formatMinor(draft.amountMinor, decimalsOf(draft.currencyCode))} ${draft.currencyCode}`;
  return {
    idPayout: like.id,
    createdAt: new Date(like.createdAt).toISOString(),
    fileName: like.fileName,
    message: possibleDuplicateText(like, amount, true),
  };
}

/** One row of an approval's manifest, as the manifest writes it (amount in the currency's decimals). */
export interface ManifestLikeRow {
  id: string;
  amount: string;
  currency: string;
  account: string;
}

/**
 * For an approver: which rows of a subject are like a payout of the last `windowDays` days that is not one of the
 * subject's own (its rows, or the other rows of its batch), with the sentence to show. Worked out when the subject
 * is shown, from the journal: a hint for the approver's eyes, not a signed fact (the send-time gate does not read it).
 */
export async function possibleDuplicatesOfRows(journal: DeskJournal, rows: readonly ManifestLikeRow[], ownBatchId: string | null, windowDays: number, now = Date.now()): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (windowDays <= 0 || rows.length === 0) return found;
  // The caller has just read and built the subject's manifest in this turn of the event loop: let it breathe first.
  await yieldToEventLoop();
  // The manifest writes each amount with its currency's decimals: the digits without the point are the minor units.
  // Each row's id goes along: the subject's own rows (and its batch) are never like themselves.
  const keyed = await mapInSlices(rows, (r) => ({ id: r.id, accountNumber: r.account, amountMinor: Number(r.amount.replace('.', '')), currencyCode: r.currency }), yieldToEventLoop);
  const earliest = await earliestLikePayouts(journal.earliestLikePayouts.bind(journal), keyed, now - windowDays * DAY_MS, { batchId: ownBatchId }, yieldToEventLoop);
  // The sentences in time slices too: a 10,000-row subject to a few accounts is 10,000 of them.
  const slicer = new TimeSlicer(yieldToEventLoop);
  for (const [i, r] of rows.entries()) {
    const like = earliest.get(likeKey(keyed[i]!));
    if (like) found.set(r.id, possibleDuplicateText(like, `${r.amount} ${r.currency}`, false));
    if (slicer.due()) await slicer.pause();
  }
  return found;
}
