// The JSON body of POST /payouts/{id} (and, plus returnUrl, of POST /payins/{id}), written in one place.
// The gateway client sends it and the review screen shows it, so what a person reviews is byte for byte
// what is signed and sent. Pure: no I/O, the currency's decimals are passed in.
import type { PayoutFields } from '../domain/payout';
import { GatewayError } from './errors';
import { amountLiteral, minifiedJson, type JsonBodyValue } from './json-body';

export type JsonBodyObject = { readonly [key: string]: JsonBodyValue };

/** Refuses an amount that is not a positive whole number of minor units (GatewayError 'validation'). */
export function assertSendableAmount(amountMinor: number): void {
  if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0) {
    throw new GatewayError('validation', `amount must be a positive whole number of minor units (got ${amountMinor})`, { code: 'AMOUNT_INVALID' });
  }
}

/** The body as a value, for a caller that adds fields of its own (payins add returnUrl). */
export function paymentRequestValue(p: PayoutFields, decimals: number): JsonBodyObject {
  assertSendableAmount(p.amountMinor);
  return {
    paymentRequested: { money: { amount: amountLiteral(p.amountMinor, decimals), currencyCode: p.currencyCode } },
    paymentMethod: {
      paymentMethodCode: p.paymentMethodCode,
      paymentOperatorCode: p.paymentOperatorCode,
      account: { accountName: p.accountName, accountNumber: p.accountNumber },
      emailAddress: p.emailAddress,
    },
    callbackUrl: p.callbackUrl,
  };
}

/** The exact text of POST /payouts/{id}'s body: minified JSON, amount an exact decimal literal. */
export function payoutRequestBody(p: PayoutFields, decimals: number): string {
  return minifiedJson(paymentRequestValue(p, decimals));
}
