// Request shapes the sandbox accepts. Objects are strict: an emulator that accepts unknown fields hides client
// bugs. Required/optional choices are house decisions (docs/gateway-notes.md, "required fields").
import { z } from 'zod';

export const PAYMENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const MoneySchema = z
  .object({
    amount: z.number().positive('amount must be greater than zero'),
    currencyCode: z.string().regex(/^[A-Z]{3}$/, 'currencyCode must be three capital letters'),
  })
  .strict();
export type WireMoney = z.output<typeof MoneySchema>;

const AccountSchema = z
  .object({
    accountName: z.string().trim().min(1).max(140),
    accountNumber: z.string().trim().min(1).max(64),
  })
  .strict();

const HttpUrl = z.url({ protocol: /^https?$/ });

const PaymentMethodSchema = z
  .object({
    paymentMethodCode: z.string().min(1),
    paymentOperatorCode: z.string().min(1),
    account: AccountSchema,
    emailAddress: z.email(),
  })
  .strict();

export const PayoutCreateSchema = z
  .object({
    paymentRequested: z.object({ money: MoneySchema }).strict(),
    paymentMethod: PaymentMethodSchema,
    callbackUrl: HttpUrl.optional(),
  })
  .strict();
export type PayoutCreateBody = z.output<typeof PayoutCreateSchema>;

export const PayinCreateSchema = z
  .object({
    paymentRequested: z.object({ money: MoneySchema }).strict(),
    paymentMethod: PaymentMethodSchema,
    callbackUrl: HttpUrl.optional(),
    returnUrl: HttpUrl.optional(),
  })
  .strict();
export type PayinCreateBody = z.output<typeof PayinCreateSchema>;

const TokenRequestBase = {
  merchantCode: z.string().min(1),
  validitySecs: z.number().int().positive().optional(),
  money: MoneySchema.optional(),
  timestamp: z.number().int().positive(),
  secret: z.string().min(1).optional(),
};

export const TOKEN_ACTIONS = ['PAYIN_CREATE', 'PAYIN_INFO'] as const;
export type TokenAction = (typeof TOKEN_ACTIONS)[number];

export const TokenByActionSchema = z
  .object({
    ...TokenRequestBase,
    action: z.enum(TOKEN_ACTIONS),
    idPayment: z.string().regex(PAYMENT_ID_PATTERN, 'idPayment must be 1-64 of A-Z a-z 0-9 _ -'),
  })
  .strict();

/** "METHOD /path", one space between; either part may be a regular expression ("(GET|POST) /payins/.*"). */
export const OPERATION_PATTERN = /^\S+ \S+$/;

export const TokenByOperationsSchema = z
  .object({
    ...TokenRequestBase,
    operations: z
      .array(z.string().regex(OPERATION_PATTERN, 'each operation is "METHOD /path"; both parts may be regexes'))
      .min(1)
      .max(100),
  })
  .strict();

export const FundBodySchema = z
  .object({ currencyCode: z.string().regex(/^[A-Z]{3}$/), amount: z.number() })
  .strict();

/** Optional body of POST /_sandbox/payouts/:id/return; without a reason the config's manualReturnReason is used. */
export const ReturnBodySchema = z.object({ reason: z.string().trim().min(1).max(140).optional() }).strict();
