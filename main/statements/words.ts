// What the statement's files say, in one place: the words for each movement, the basis sentence, signed amounts.
import { formatMinor } from '../domain/money';
import type { Movement, MovementKind } from './movements';

export const STATEMENT_BASIS = "a payment counts in the period of the gateway's processedAt (when it was paid, failed or came back), not of its entry";

export const MOVEMENT_WORDS: Record<MovementKind, string> = {
  paid: 'Payout paid',
  fee: 'Fee',
  failed: 'Payout failed, nothing left the balance',
  returned: 'Payout returned',
  payin: 'Payin received',
};

/** "12.50" → "-12.50"; zero stays unsigned. */
export function negate(amount: string): string {
  if (/^0(\.0+)?$/.test(amount)) return amount;
  return amount.startsWith('-') ? amount.slice(1) : `-${amount}`;
}

/** A movement's amount as it acts on the balance: negative for money that left; a failed payout's own amount, unsigned. */
export function entryAmount(e: Movement, decimals: number): string {
  return formatMinor(e.kind === 'failed' ? e.amountMinor : e.deltaMinor, decimals);
}

/** A moment's day on this machine's calendar, YYYY-MM-DD (the screen and the CLI choose periods in local days). */
export function localDayText(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
