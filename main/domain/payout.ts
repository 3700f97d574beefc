// Rules for one payout, shared by the single-payout form, the CSV import and the engine.
import { isCurrencyCode } from './currencies';
import { isValidPaymentId } from './ids';

export const DEFAULT_PAYMENT_METHOD = 'BANK_TRANSFER';

/**
 * The payee and money of one payout: the fields every description of it shares (the draft, the
 * journal's record, the gateway request, the review screen). Written once here; the others derive
 * from it (Pick/Omit/intersection) and differ only where they must.
 */
export interface PayoutFields {
  amountMinor: number;
  currencyCode: string;
  accountName: string;
  accountNumber: string;
  paymentOperatorCode: string;
  paymentMethodCode: string;
  emailAddress: string;
  callbackUrl?: string;
}

/** A payout as the desk holds it: amount in minor units of its currency. */
export interface PayoutDraft extends PayoutFields {
  idPayout: string;
  /** Kept locally, never sent. */
  reference?: string;
}

/**
 * Only the payout fields of `source` (a draft, a journal record…), in their usual order; a null,
 * empty or absent callbackUrl is left out. The one field-by-field copy between the shapes.
 */
export function payoutFieldsOf(source: Omit<PayoutFields, 'callbackUrl'> & { callbackUrl?: string | null }): PayoutFields {
  return {
    amountMinor: source.amountMinor,
    currencyCode: source.currencyCode,
    accountName: source.accountName,
    accountNumber: source.accountNumber,
    paymentOperatorCode: source.paymentOperatorCode,
    paymentMethodCode: source.paymentMethodCode,
    emailAddress: source.emailAddress,
    ...(source.callbackUrl ? { callbackUrl: source.callbackUrl } : {}),
  };
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
