// Response shapes and the checks of requested money, currencies and operators against the config.
import type { CurrencyConfig, PaymentOperatorConfig, SandboxConfig } from './config';
import { SandboxError } from './errors';
import { minorFromWire, wireFromMinor } from './money';
import { PAYMENT_ID_PATTERN, type WireMoney } from './schemas';
import type { PayinRecord, PayoutRecord } from './store';

export function assertPaymentId(id: string, name: 'idPayout' | 'idPayin'): string {
  if (!PAYMENT_ID_PATTERN.test(id)) {
    throw new SandboxError('INVALID_ID', `${name} must be 1-64 characters of A-Z a-z 0-9 _ - (got ${id.length} chars)`);
  }
  return id;
}

export function currencyOf(config: SandboxConfig, code: string): CurrencyConfig {
  const currency = config.currencies.find((c) => c.code === code);
  if (!currency) throw new SandboxError('UNKNOWN_CURRENCY', `currency ${code} is not supported`);
  return currency;
}

/** Wire money → minor units, checked against the currency's decimals and maximum. */
export function resolveMoney(config: SandboxConfig, money: WireMoney): { amountMinor: number; currencyCode: string } {
  const currency = currencyOf(config, money.currencyCode);
  const amountMinor = minorFromWire(money.amount, currency.decimals, currency.code);
  if (amountMinor <= 0) throw new SandboxError('INVALID_AMOUNT', 'amount must be greater than zero');
  if (currency.maxAmountMinor !== undefined && amountMinor > currency.maxAmountMinor) {
    const max = wireFromMinor(currency.maxAmountMinor, currency.decimals);
    throw new SandboxError('INVALID_AMOUNT', `amount exceeds the ${currency.code} maximum of ${max}`);
  }
  return { amountMinor, currencyCode: currency.code };
}

/** The operator must exist, belong to the method, serve the currency, and the method must fit the direction. */
export function resolveOperator(
  config: SandboxConfig,
  direction: 'PAYIN' | 'PAYOUT',
  paymentMethodCode: string,
  paymentOperatorCode: string,
  currencyCode: string,
): PaymentOperatorConfig {
  const method = config.paymentMethods.find((m) => m.code === paymentMethodCode && m.direction === direction);
  if (!method) {
    throw new SandboxError(
      'UNKNOWN_PAYMENT_METHOD',
      `payment method ${paymentMethodCode} is not available for ${direction === 'PAYIN' ? 'payins' : 'payouts'}`,
    );
  }
  const operator = config.paymentOperators.find(
    (o) => o.code === paymentOperatorCode && o.paymentMethodCode === paymentMethodCode,
  );
  if (!operator) {
    throw new SandboxError(
      'UNKNOWN_PAYMENT_OPERATOR',
      `payment operator ${paymentOperatorCode} does not exist for method ${paymentMethodCode}`,
    );
  }
  if (!operator.currencyCodes.includes(currencyCode)) {
    throw new SandboxError(
      'UNKNOWN_PAYMENT_OPERATOR',
      `payment operator ${paymentOperatorCode} does not handle ${currencyCode}`,
    );
  }
  return operator;
}

export function wireMoney(config: SandboxConfig, amountMinor: number, currencyCode: string): WireMoney {
  return { amount: wireFromMinor(amountMinor, currencyOf(config, currencyCode).decimals), currencyCode };
}

const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

export function payoutCreatedView(config: SandboxConfig, p: PayoutRecord) {
  return {
    paymentRequested: { money: wireMoney(config, p.amountMinor, p.currencyCode) },
    paymentMethodResponse: { paymentMethodCode: p.paymentMethodCode, idPayout: p.idPayout },
  };
}

export function payoutStatusView(config: SandboxConfig, p: PayoutRecord, isTest: boolean) {
  // A failed payout charges no fee; while in flight the fee shown is the one reserved. A returned payout keeps
  // the fee it was charged on SUCCESS: only the amount comes back.
  const fee = p.status === 'FAILED' ? 0 : p.feeMinor;
  return {
    paymentRequested: { money: wireMoney(config, p.amountMinor, p.currencyCode) },
    process: {
      status: p.status,
      createdAt: iso(p.createdAt),
      processedAt: iso(p.processedAt),
      isTest,
      ...(p.failureReason ? { failureReason: p.failureReason } : {}),
    },
    fee: wireMoney(config, fee, p.currencyCode),
    paymentMethodResponse: { paymentMethodCode: p.paymentMethodCode, idPayout: p.idPayout },
  };
}

export function payinCreatedView(config: SandboxConfig, p: PayinRecord) {
  const money = wireMoney(config, p.amountMinor, p.currencyCode);
  return {
    paymentRequested: { money },
    paymentMethodResponse: {
      idPayin: p.idPayin,
      paymentMethodCode: p.paymentMethodCode,
      account: { ...p.payTo },
      money,
      expireAt: new Date(p.expireAt).toISOString(),
      reference: p.reference,
      ...(p.returnUrl ? { returnUrl: p.returnUrl } : {}),
    },
  };
}

export function payinStatusView(config: SandboxConfig, p: PayinRecord, isTest: boolean) {
  return {
    ...payinCreatedView(config, p),
    process: {
      status: p.status,
      createdAt: iso(p.createdAt),
      processedAt: iso(p.processedAt),
      isTest,
      ...(p.failureReason ? { failureReason: p.failureReason } : {}),
    },
  };
}

/** Customer account data: what the request named at once, what the payment process saw once it succeeded. */
export function accountDataView(p: PayinRecord) {
  return {
    request: {
      accountName: p.customerAccount.accountName,
      accountNumber: p.customerAccount.accountNumber,
      emailAddress: p.emailAddress,
      paymentMethodCode: p.paymentMethodCode,
      paymentOperatorCode: p.paymentOperatorCode,
    },
    process:
      p.status === 'SUCCESS'
        ? {
            accountName: p.customerAccount.accountName,
            accountNumber: p.customerAccount.accountNumber,
            bankCode: p.payTo.bankCode,
            bankName: p.payTo.bankName,
            paidAt: iso(p.processedAt),
          }
        : null,
  };
}
