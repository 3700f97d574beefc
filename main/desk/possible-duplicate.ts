// One payout (New payout, `payouts create`) like one the desk sent or is sending in the profile's last
// `repeatWindowDays` days: the same account, amount and currency. The batch import flags such rows as warnings
// (main/csv/journal-checks.ts); a single payout is refused until the person confirms it is a separate payment.
import type { PossibleDuplicate } from '../../contract/api';
import { formatMinor } from '../domain/money';
import type { DeskJournal } from '../journal/port';
import { lastDigits } from '../csv/journal-checks';
import type { DecimalsOf } from './convert';

const DAY_MS = 86_400_000;

export interface LikeDraft {
  idPayout: string;
  accountNumber: string;
  amountMinor: number;
  currencyCode: string;
}

/** The earliest earlier payout like `draft` (never itself), or null; null too when the window is 0 (off). */
export async function possibleDuplicateOf(journal: DeskJournal, draft: LikeDraft, windowDays: number, decimalsOf: DecimalsOf, now = Date.now()): Promise<PossibleDuplicate | null> {
  if (windowDays <= 0) return null;
  const key = { accountNumber: draft.accountNumber, amountMinor: draft.amountMinor, currencyCode: draft.currencyCode };
  const like = (await journal.recentLikePayouts([key], now - windowDays * DAY_MS))
    .filter((p) => p.id !== draft.idPayout)
    .sort((a, b) => a.createdAt - b.createdAt)[0];
  if (!like) return null;
  const when = new Date(like.createdAt).toISOString().slice(0, 10);
  const amount = `${formatMinor(draft.amountMinor, decimalsOf(draft.currencyCode))} ${draft.currencyCode}`;
  return {
    idPayout: like.id,
    createdAt: new Date(like.createdAt).toISOString(),
    fileName: like.fileName,
    message: `possible duplicate of payout ${like.id} of ${when}${like.fileName ? ` (file ${like.fileName})` : ''}: ${amount} to the same account ${lastDigits(draft.accountNumber)}; paying it again pays twice, so confirm only if this is a separate payment`,
  };
}

/** One row of an approval's manifest, as the manifest writes it (amount in the currency's decimals). */
export interface ManifestLikeRow {
  id: string;
  amount: string;
  currency: string;
  account: string;
}

/** Rows asked for at once: one statement each, as the CSV check does. */
const LOOKUP_SLICE = 2_000;

/**
 * For an approver: which rows of a subject are like a payout of the last `windowDays` days that is not one of the
 * subject's own (its rows, or the other rows of its batch), with the sentence to show. Worked out when the subject
 * is shown, from the journal: a hint for the approver's eyes, not a signed fact (the send-time gate does not read it).
 */
export async function possibleDuplicatesOfRows(journal: DeskJournal, rows: readonly ManifestLikeRow[], ownBatchId: string | null, windowDays: number, now = Date.now()): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (windowDays <= 0 || rows.length === 0) return found;
  const since = now - windowDays * DAY_MS;
  const own = new Set(rows.map((r) => r.id));
  // The manifest writes each amount with its currency's decimals: the digits without the point are the minor units.
  const minorOf = (amount: string) => Number(amount.replace('.', ''));
  const key = (account: string, minor: number, currency: string) => `${account}\u0000${minor}\u0000${currency}`;
  const earliest = new Map<string, { id: string; createdAt: number; fileName: string | null }>();
  for (let i = 0; i < rows.length; i += LOOKUP_SLICE) {
    const keys = rows.slice(i, i + LOOKUP_SLICE).map((r) => ({ accountNumber: r.account, amountMinor: minorOf(r.amount), currencyCode: r.currency }));
    for (const like of await journal.recentLikePayouts(keys, since)) {
      if (own.has(like.id) || (ownBatchId !== null && like.batchId === ownBatchId)) continue;
      const k = key(like.accountNumber, like.amountMinor, like.currencyCode);
      const seen = earliest.get(k);
      if (!seen || like.createdAt < seen.createdAt) earliest.set(k, like);
    }
  }
  for (const r of rows) {
    const like = earliest.get(key(r.account, minorOf(r.amount), r.currency));
    if (!like) continue;
    const when = new Date(like.createdAt).toISOString().slice(0, 10);
    found.set(r.id, `possible duplicate of payout ${like.id} of ${when}${like.fileName ? ` (file ${like.fileName})` : ''}: ${r.amount} ${r.currency} to the same account ${lastDigits(r.account)}`);
  }
  return found;
}
