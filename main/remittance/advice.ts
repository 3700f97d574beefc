// Remittance advice: what a payee is told of the payouts that paid them — who paid, how much, when, into which
// account, and the references of what each pays. Only a payout the gateway reports SUCCESS is advised: one in
// flight has paid no one yet, a failed one never will, and a RETURNED one came back, so advising it as paid would
// be false. A batch's advice is one per payee (same name, e-mail and account), listing each of their payouts.
import type { PaymentRecord } from '../journal/types';
import { formatMinor } from '../domain/money';
import { lastDigits } from '../csv/like-payouts';
import { payeeKey } from '../domain/payee-key';
import { DeskError } from '../desk/services';
import { exactSum } from '../desk/convert';

export interface AdvisedPayment {
  payoutId: string;
  amount: string;
  currencyCode: string;
  /** The gateway's processedAt of the payment, as sent. */
  paidAt: string;
  reference: string | null;
  rowNumber: number | null;
}

export interface RemittanceAdvice {
  payer: string;
  payee: string;
  payeeEmail: string;
  /** The end of the account paid into, enough for the payee to recognise it. */
  account: string;
  /** The batch file the payments came in, if they came in one. */
  batchFileName: string | null;
  payments: AdvisedPayment[];
  /** Per currency, the sum of the payments (exact decimal strings). */
  totals: { amount: string; currencyCode: string }[];
}

/** Why a payout cannot be advised, or null when it can (paid: SUCCESS, final, with the time it was paid). */
export function notAdvisable(p: PaymentRecord): string | null {
  if (p.kind !== 'payout') return `${p.id} is a payin: remittance advice is for payouts`;
  const status = (p.gatewayStatus ?? '').toUpperCase();
  if (status === 'RETURNED') return `Payout ${p.id} came back (RETURNED): it did not pay ${p.accountName}, so there is no advice to give`;
  if (status !== 'SUCCESS' || !p.isFinal || !p.processedAt) return `Payout ${p.id} is ${p.status}, not paid: advice is given once the gateway reports SUCCESS`;
  return null;
}

function advice(payer: string, payments: readonly PaymentRecord[], decimalsOf: (code: string) => number, batchFileName: string | null): RemittanceAdvice {
  const first = payments[0]!;
  const totals = new Map<string, number>();
  for (const p of payments) {
    totals.set(p.currencyCode, exactSum(totals.get(p.currencyCode) ?? 0, p.amountMinor, p.currencyCode, "advice's total"));
  }
  return {
    payer,
    payee: first.accountName,
    payeeEmail: first.emailAddress,
    account: lastDigits(first.accountNumber),
    batchFileName,
    payments: payments.map((p) => ({ payoutId: p.id, amount: formatMinor(p.amountMinor, decimalsOf(p.currencyCode)), currencyCode: p.currencyCode, paidAt: p.processedAt!, reference: p.reference, rowNumber: p.rowNumber })),
    totals: [...totals].sort(([a], [b]) => (a < b ? -1 : 1)).map(([code, minor]) => ({ amount: formatMinor(minor, decimalsOf(code)), currencyCode: code })),
  };
}

/** The advice of one payout; refused, saying why, when it did not pay. */
export function payoutAdvice(p: PaymentRecord, payer: string, decimalsOf: (code: string) => number, batchFileName: string | null): RemittanceAdvice {
  const why = notAdvisable(p);
  if (why) throw new DeskError('NOT_PAID', why);
  return advice(payer, [p], decimalsOf, batchFileName);
}

/** A batch's advice, one per payee, in the order the payees first appear; and how many payouts were not advised. */
export function batchAdvice(rows: readonly PaymentRecord[], payer: string, decimalsOf: (code: string) => number, batchFileName: string): { advices: RemittanceAdvice[]; notPaid: number } {
  const byPayee = new Map<string, PaymentRecord[]>();
  let notPaid = 0;
  for (const p of rows) {
    if (notAdvisable(p)) {
      notPaid++;
      continue;
    }
    const key = `${payeeKey(p.accountName)}\u0000${payeeKey(p.emailAddress)}\u0000${p.accountNumber}`;
    const list = byPayee.get(key);
    if (list) list.push(p);
    else byPayee.set(key, [p]);
  }
  return { advices: [...byPayee.values()].map((list) => advice(payer, list, decimalsOf, batchFileName)), notPaid };
}
