// Rules for one payout, shared by the single-payout form, the CSV import and the engine.
import { isCurrencyCode } from './currencies';
import { isValidPaymentId } from './ids';

export const DEFAULT_PAYMENT_METHOD = 'BANK_TRANSFER';

/** A payout as the desk holds it: amount in minor units of its currency. */
export interface PayoutDraft {
  idPayout: string;
  amountMinor: number;
  currencyCode: string;
  accountName: string;
  accountNumber: string;
  paymentOperatorCode: string;
  paymentMethodCode: string;
  emailAddress: string;
  callbackUrl?: string;
  /** Kept locally, never sent. */
  reference?: string;
}

export interface FieldProblem {
  field: keyof PayoutDraft;
  code: string;
  message: string;
}

// Deliberately simple: one @, no spaces, a dot in the domain. Full RFC 5322 is not what finance files hold.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmailAddress(text: string): boolean {
  return EMAIL.test(text) && text.length <= 254;
}

export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Checks one payout; an empty list means it may be sent. */
export function validatePayout(p: PayoutDraft, maxAmountMinor?: number): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const need = (field: keyof PayoutDraft, value: string, label: string) => {
    if (!value.trim()) problems.push({ field, code: 'REQUIRED', message: `${label} is required` });
  };
  if (!isValidPaymentId(p.idPayout)) {
    problems.push({ field: 'idPayout', code: 'ID_FORMAT', message: 'idPayout must be 1-64 characters of A-Z, a-z, 0-9, "_" or "-"' });
  }
  if (!Number.isSafeInteger(p.amountMinor) || p.amountMinor <= 0) {
    problems.push({ field: 'amountMinor', code: 'AMOUNT_NOT_POSITIVE', message: 'amount must be greater than zero' });
  } else if (maxAmountMinor !== undefined && p.amountMinor > maxAmountMinor) {
    problems.push({ field: 'amountMinor', code: 'AMOUNT_OVER_LIMIT', message: 'amount is over the per-payout maximum of this profile' });
  }
  if (!isCurrencyCode(p.currencyCode)) {
    problems.push({ field: 'currencyCode', code: 'CURRENCY_FORMAT', message: 'currency must be a three-letter ISO code such as EUR' });
  }
  need('accountName', p.accountName, 'account name');
  need('accountNumber', p.accountNumber, 'account number');
  need('paymentOperatorCode', p.paymentOperatorCode, 'operator code');
  need('paymentMethodCode', p.paymentMethodCode, 'payment method');
  if (!isEmailAddress(p.emailAddress)) {
    problems.push({ field: 'emailAddress', code: 'EMAIL_FORMAT', message: 'e-mail address is not valid' });
  }
  if (p.callbackUrl && !isHttpUrl(p.callbackUrl)) {
    problems.push({ field: 'callbackUrl', code: 'URL_FORMAT', message: 'callback URL must be an http or https address' });
  }
  return problems;
}
