// Tolerant readers for gateway answers. Every object schema is loose (unknown properties kept,
// order irrelevant); a field the desk cannot work without is required, and its absence becomes a
// GatewayError 'bad-response'. Amounts are converted to minor units by currency decimals here.
import { z } from 'zod';
import type { PayoutFields } from '../domain/payout';
import { builtOnFirstUse } from '../built-on-first-use';

/**
 * The readers of the answers, built at the first answer read rather than when the module loads (every CLI
 * command loads the gateway client; main/built-on-first-use.ts).
 */
export const responseSchemas = builtOnFirstUse(() => {
  const Money = z.looseObject({ amount: z.number(), currencyCode: z.string() });
  const OptionalMoney = Money.optional();

  const Process = z.looseObject({
    status: z.string().min(1),
    createdAt: z.string().optional(),
    processedAt: z.string().optional(),
    isTest: z.boolean().optional(),
    failureReason: z.string().optional(),
  });

  const PayoutCreatedSchema = z.looseObject({
    paymentRequested: z.looseObject({ money: OptionalMoney }).optional(),
    paymentMethodResponse: z.looseObject({ idPayout: z.string().min(1), paymentMethodCode: z.string().optional() }),
  });

  const PayoutStatusSchema = z.looseObject({
    paymentRequested: z.looseObject({ money: OptionalMoney }).optional(),
    process: Process,
    fee: OptionalMoney,
    paymentMethodResponse: z.looseObject({ idPayout: z.string().optional(), paymentMethodCode: z.string().optional() }).optional(),
  });

  const PayinAccount = z.looseObject({
    accountName: z.string().optional(),
    accountNumber: z.string().optional(),
    bankCode: z.string().optional(),
    bankName: z.string().optional(),
  });

  const PayinMethodResponse = z.looseObject({
    idPayin: z.string().optional(),
    paymentMethodCode: z.string().optional(),
    account: PayinAccount.optional(),
    money: OptionalMoney,
    expireAt: z.string().optional(),
    reference: z.string().optional(),
    returnUrl: z.string().optional(),
  });

  const PayinCreatedSchema = z.looseObject({
    paymentRequested: z.looseObject({ money: OptionalMoney }).optional(),
    paymentMethodResponse: PayinMethodResponse.extend({ idPayin: z.string().min(1) }),
  });

  const PayinStatusSchema = z.looseObject({
    paymentRequested: z.looseObject({ money: OptionalMoney }).optional(),
    paymentMethodResponse: PayinMethodResponse.optional(),
    process: Process.partial().optional(),
    fee: OptionalMoney,
  });

  const AccountDataSchema = z.looseObject({
    request: z.record(z.string(), z.unknown()).nullable().optional(),
    process: z.record(z.string(), z.unknown()).nullable().optional(),
  });

  const PaymentOptionsSchema = z.looseObject({
    data: z.array(
      z.looseObject({
        paymentMethodCode: z.string().min(1),
        paymentOperators: z.array(z.looseObject({ code: z.string().min(1), name: z.string().optional() })).default([]),
      }),
    ),
  });

  const MerchantInfoSchema = z.looseObject({
    channelInfo: z.looseObject({ name: z.string() }),
  });

  const BalancesSchema = z.looseObject({
    data: z.array(
      z.looseObject({
        currencyCode: z.string().min(1),
        available: z.number(),
        reserved: z.number().optional(),
      }),
    ),
  });

  const CurrenciesSchema = z.looseObject({
    data: z.array(
      z.looseObject({
        code: z.string().min(1),
        name: z.string().optional(),
        decimals: z.number().int().min(0).max(6).optional(),
      }),
    ),
  });

  const OperatorsSchema = z.looseObject({
    data: z.array(
      z.looseObject({
        code: z.string().min(1),
        name: z.string().optional(),
        paymentMethodCode: z.string().optional(),
        currencyCodes: z.array(z.string()).optional(),
      }),
    ),
  });

  return { PayoutCreatedSchema, PayoutStatusSchema, PayinCreatedSchema, PayinStatusSchema, AccountDataSchema, PaymentOptionsSchema, MerchantInfoSchema, BalancesSchema, CurrenciesSchema, OperatorsSchema };
});

/** "process.status: expected string" style summary of what is missing, for the bad-response message. */
export function describeSchemaProblem(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || 'body'}: ${i.message}`)
    .join('; ');
}

// ---- public result types ---------------------------------------------------------------------

/** What POST /payouts/{id} carries: the payout fields (the id is in the path, the reference stays local). */
export type PayoutRequest = PayoutFields;

export interface PayinRequest extends PayoutRequest {
  returnUrl?: string;
}

export interface PayoutCreated {
  idPayout: string;
  amountMinor?: number;
  currencyCode?: string;
  paymentMethodCode?: string;
  raw: unknown;
}

export interface PayoutStatus {
  idPayout: string;
  status: string;
  amountMinor?: number;
  currencyCode?: string;
  feeMinor?: number;
  feeCurrencyCode?: string;
  createdAt?: string;
  processedAt?: string;
  isTest?: boolean;
  failureReason?: string;
  raw: unknown;
}

export interface PayinAccount {
  accountName?: string;
  accountNumber?: string;
  bankCode?: string;
  bankName?: string;
}

export interface PayinCreated {
  idPayin: string;
  amountMinor?: number;
  currencyCode?: string;
  /** Amount the customer has to pay (paymentMethodResponse.money). */
  amountToPayMinor?: number;
  paymentMethodCode?: string;
  account?: PayinAccount;
  expireAt?: string;
  reference?: string;
  returnUrl?: string;
  raw: unknown;
}

export interface PayinStatus extends Omit<PayinCreated, 'raw'> {
  status?: string;
  createdAt?: string;
  processedAt?: string;
  isTest?: boolean;
  failureReason?: string;
  feeMinor?: number;
  feeCurrencyCode?: string;
  raw: unknown;
}

export interface PayinAccountData {
  request: Record<string, unknown> | null;
  process: Record<string, unknown> | null;
  raw: unknown;
}

export interface PaymentOption {
  paymentMethodCode: string;
  operators: { code: string; name?: string }[];
}

export interface MerchantInfo {
  channelName: string;
  raw: unknown;
}

export interface Balance {
  currencyCode: string;
  availableMinor: number;
  reservedMinor?: number;
}

export interface CurrencyInfo {
  code: string;
  name?: string;
  /** From the gateway, or ISO 4217 when it does not say. */
  decimals: number;
}

export interface PaymentOperator {
  code: string;
  name?: string;
  paymentMethodCode?: string;
  currencyCodes?: string[];
}

export interface MoneyMinor {
  amountMinor: number;
  currencyCode: string;
}
