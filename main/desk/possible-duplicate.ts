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
