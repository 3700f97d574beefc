// A period's movements as double-entry journal lines. Every movement moves money between the clearing account (the
// merchant's balance at the gateway) and the account of what moved:
//   payout paid   Dr payouts   Cr clearing        fee        Dr fees      Cr clearing
//   returned      Dr clearing  Cr returns         payin      Dr clearing  Cr payins
// A failed payout moved nothing (its fee, if the gateway kept one, is a fee movement of its own). Each line's id is
// its movement's id and side, stable across exports, so a ledger can tell a line it has from a new one.
import type { AccountingAccounts } from '../../contract/api';
import { formatMinor } from '../domain/money';
import type { Movement } from '../statements/movements';
import { localDayText, MOVEMENT_WORDS } from '../statements/words';

export interface JournalLine {
  lineId: string;
  movementId: string;
  paymentId: string;
  /** The local day of the gateway's processedAt, YYYY-MM-DD. */
  day: string;
  at: number;
  account: string;
  currencyCode: string;
  /** Unsigned decimal text; exactly one of debit and credit is set. */
  debit: string;
  credit: string;
  description: string;
}

/** Movements that post to the ledger: all but a failed payout, which moved nothing. */
export const postsToLedger = (m: Movement) => m.kind !== 'failed';

function accountsOf(m: Movement, a: AccountingAccounts): [debit: string, credit: string] {
  switch (m.kind) {
    case 'paid':
      return [a.payouts, a.clearing];
    case 'fee':
      return [a.fees, a.clearing];
    case 'returned':
      return [a.clearing, a.returns];
    case 'payin':
      return [a.clearing, a.payins];
    case 'failed':
      throw new Error(`a failed payout (${m.paymentId}) posts nothing`);
  }
}

export function journalLines(movements: readonly Movement[], accounts: AccountingAccounts, decimalsOf: (code: string) => number): JournalLine[] {
  const lines: JournalLine[] = [];
  for (const m of movements.filter(postsToLedger)) {
    const [debitAccount, creditAccount] = accountsOf(m, accounts);
    const amount = formatMinor(m.amountMinor, decimalsOf(m.currencyCode));
    const base = { movementId: m.movementId, paymentId: m.paymentId, day: localDayText(m.at), at: m.at, currencyCode: m.currencyCode, description: `${MOVEMENT_WORDS[m.kind]} ${m.paymentId}` };
    lines.push({ ...base, lineId: `${m.movementId}:dr`, account: debitAccount, debit: amount, credit: '' });
    lines.push({ ...base, lineId: `${m.movementId}:cr`, account: creditAccount, debit: '', credit: amount });
  }
  return lines;
}
