// Sandbox configuration: one zod schema is both the validation of a config file and the source of the
// defaults. Every top-level field has a default, so `startSandbox({ rateLimitPerSecond: null })` works and a
// JSON file only needs the parts it changes. Amounts in the config are integer minor units (fields end in Minor).
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { FaultPatchSchema } from './faults';

const CurrencyCode = z.string().regex(/^[A-Z]{3}$/, 'a currency code is three capital letters');
const MinorAmount = z.number().int().nonnegative().refine(Number.isSafeInteger, 'must be a safe integer');

export const MerchantConfigSchema = z
  .object({
    code: z.string().min(1).max(64),
    channelName: z.string().min(1),
    publicKeysPem: z.array(z.string().includes('BEGIN PUBLIC KEY')).default([]),
    /** Deprecated authentication: the secret sent in the token request body. Absent = secrets refused. */
    secret: z.string().min(8).optional(),
    /** Available balance per currency at start, minor units. */
    balancesMinor: z.record(CurrencyCode, MinorAmount).default({}),
  })
  .strict();

export const CurrencyConfigSchema = z
  .object({
    code: CurrencyCode,
    name: z.string().min(1),
    decimals: z.number().int().min(0).max(4),
    /** Largest accepted payment amount in this currency, minor units (absent = no limit). */
    maxAmountMinor: MinorAmount.optional(),
  })
  .strict();

export const FeeRuleSchema = z
  .object({
    fixedMinor: MinorAmount.default(0),
    /** 1 basis point = 0.01 % of the amount, rounded half up to a minor unit. */
    basisPoints: z.number().int().min(0).max(10_000).default(0),
    minMinor: MinorAmount.optional(),
    maxMinor: MinorAmount.optional(),
  })
  .strict();

export const PaymentMethodConfigSchema = z
  .object({ code: z.string().min(1), direction: z.enum(['PAYIN', 'PAYOUT']) })
  .strict();

export const PaymentOperatorConfigSchema = z
  .object({
    code: z.string().min(1),
    name: z.string().min(1),
    paymentMethodCode: z.string().min(1),
    currencyCodes: z.array(CurrencyCode).min(1),
    /** Shown as the account to pay into on payins. */
    bankCode: z.string().default('SANDBOXBANK'),
    bankName: z.string().default('Sandbox Bank'),
  })
  .strict();

export const OutcomeRuleSchema = z
  .object({
    /** A payout (or a paid payin) whose account number ends with this text fails. */
    accountNumberEndsWith: z.string().min(1),
    failureReason: z.string().min(1),
  })
  .strict();

/** Paid can still change: a payout matching a return rule becomes SUCCESS as usual, then RETURNED. */
export const ReturnRuleSchema = z
  .object({
    /** A payout whose account number ends with this text is returned `timings.payoutReturnMs` after SUCCESS. */
    accountNumberEndsWith: z.string().min(1),
    /** Shown as process.failureReason once the payout is RETURNED. */
    returnReason: z.string().min(1),
  })
  .strict();

export const TimingsSchema = z
  .object({
    payoutPendingMs: z.number().int().min(0).default(1_000),
    payoutProcessingMs: z.number().int().min(0).default(2_000),
    /** Time from SUCCESS to RETURNED for a payout matching a return rule. */
    payoutReturnMs: z.number().int().min(0).default(5_000),
    payinExpiryMs: z.number().int().min(1).default(15 * 60_000),
  })
  .strict();

export const CallbackRetrySchema = z
  .object({
    // null (the default): retried until a 2xx, as the gateway does; a number caps it (for tests).
    maxAttempts: z.number().int().min(1).max(1_000).nullable().default(null),
    initialDelayMs: z.number().int().min(0).default(500),
    factor: z.number().min(1).max(10).default(2),
    maxDelayMs: z.number().int().min(0).default(60_000),
    timeoutMs: z.number().int().min(1).default(5_000),
  })
  .strict();

export const TokenRulesSchema = z
  .object({
    defaultValiditySecs: z.number().int().min(1).default(3_600),
    maxValiditySecs: z.number().int().min(1).default(86_400),
    /**
     * Tokens by action (limited to one payment id, made to be handed to a customer): a payment link lives for days,
     * so these may be valid longer than general tokens, up to 30 days by default.
     */
    maxActionValiditySecs: z.number().int().min(1).default(2_592_000),
    timestampSkewSecs: z.number().int().min(0).default(300),
    /** HS256 key for issued JWTs. Absent = a random key per sandbox start. Tests set it to forge tokens. */
    signingSecret: z.string().min(32).optional(),
  })
  .strict();

const DEFAULT_MERCHANT = {
  code: 'DEMO-MERCHANT',
  channelName: 'Demo Store',
  publicKeysPem: [],
  balancesMinor: { EUR: 10_000_000, USD: 10_000_000, GBP: 5_000_000, JPY: 100_000_000, KWD: 5_000_000 },
};

const DEFAULT_CURRENCIES = [
  { code: 'EUR', name: 'Euro', decimals: 2 },
  { code: 'USD', name: 'US Dollar', decimals: 2 },
  { code: 'GBP', name: 'Pound Sterling', decimals: 2 },
  { code: 'JPY', name: 'Yen', decimals: 0 },
  { code: 'KWD', name: 'Kuwaiti Dinar', decimals: 3 },
];

const DEFAULT_FEES = {
  EUR: { fixedMinor: 25, basisPoints: 50 },
  USD: { fixedMinor: 30, basisPoints: 50 },
  GBP: { fixedMinor: 20, basisPoints: 50 },
  JPY: { fixedMinor: 40, basisPoints: 50 },
  KWD: { fixedMinor: 100, basisPoints: 50 },
};

const DEFAULT_METHODS = [
  { code: 'BANK_TRANSFER', direction: 'PAYOUT' },
  { code: 'VAPAY', direction: 'PAYIN' },
] as const;

const DEFAULT_OPERATORS = [
  { code: 'EU_SEPA', name: 'SEPA Credit Transfer', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['EUR'] },
  { code: 'US_ACH', name: 'ACH Transfer', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['USD'] },
  { code: 'UK_FPS', name: 'Faster Payments', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['GBP'] },
  { code: 'JP_ZENGIN', name: 'Zengin Transfer', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['JPY'] },
  { code: 'KW_KNET', name: 'KNET Transfer', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['KWD'] },
  {
    code: 'VAPAY_EU',
    name: 'VaPay Europe',
    paymentMethodCode: 'VAPAY',
    currencyCodes: ['EUR', 'GBP'],
    bankCode: 'VAPEU',
    bankName: 'VaPay Europe Bank',
  },
  {
    code: 'VAPAY_US',
    name: 'VaPay US',
    paymentMethodCode: 'VAPAY',
    currencyCodes: ['USD'],
    bankCode: 'VAPUS',
    bankName: 'VaPay US Bank',
  },
];

export const SandboxConfigSchema = z
  .object({
    merchants: z.array(MerchantConfigSchema).min(1).prefault([DEFAULT_MERCHANT]),
    currencies: z.array(CurrencyConfigSchema).min(1).prefault(DEFAULT_CURRENCIES),
    fees: z.record(CurrencyCode, FeeRuleSchema).prefault(DEFAULT_FEES),
    paymentMethods: z.array(PaymentMethodConfigSchema).min(1).prefault([...DEFAULT_METHODS]),
    paymentOperators: z.array(PaymentOperatorConfigSchema).prefault(DEFAULT_OPERATORS),
    timings: TimingsSchema.prefault({}),
    /** Requests per merchant in any 1000 ms window; 0 or null switches the limit off. */
    rateLimitPerSecond: z.number().int().min(0).nullable().default(10),
    outcomeRules: z
      .array(OutcomeRuleSchema)
      .prefault([{ accountNumberEndsWith: '0000', failureReason: 'ACCOUNT_REJECTED' }]),
    /** Checked only for payouts that would succeed: an outcome rule or missing funds fail them first. */
    returnRules: z
      .array(ReturnRuleSchema)
      .prefault([{ accountNumberEndsWith: '9999', returnReason: 'ACCOUNT_CLOSED' }]),
    /** Reason of a return made with POST /_sandbox/payouts/:id/return when the request names none. */
    manualReturnReason: z.string().min(1).default('RETURNED_BY_BANK'),
    /** Reason given when a payout cannot be covered by the available balance. */
    insufficientFundsReason: z.string().min(1).default('INSUFFICIENT_FUNDS'),
    callbackRetry: CallbackRetrySchema.prefault({}),
    tokens: TokenRulesSchema.prefault({}),
    /** Reported as process.isTest on every payment. */
    isTest: z.boolean().default(true),
    faults: FaultPatchSchema.prefault({}),
  })
  .strict()
  .superRefine((config, ctx) => {
    const currencyCodes = new Set(config.currencies.map((c) => c.code));
    const methodCodes = new Set(config.paymentMethods.map((m) => m.code));
    const merchantCodes = new Set<string>();
    for (const merchant of config.merchants) {
      if (merchantCodes.has(merchant.code)) {
        ctx.addIssue({ code: 'custom', message: `merchant ${merchant.code} is listed twice`, path: ['merchants'] });
      }
      merchantCodes.add(merchant.code);
    }
    for (const operator of config.paymentOperators) {
      if (!methodCodes.has(operator.paymentMethodCode)) {
        ctx.addIssue({
          code: 'custom',
          message: `operator ${operator.code} names unknown payment method ${operator.paymentMethodCode}`,
          path: ['paymentOperators'],
        });
      }
      for (const code of operator.currencyCodes) {
        if (!currencyCodes.has(code)) {
          ctx.addIssue({
            code: 'custom',
            message: `operator ${operator.code} names unknown currency ${code}`,
            path: ['paymentOperators'],
          });
        }
      }
    }
  });

export type SandboxConfigInput = z.input<typeof SandboxConfigSchema>;
export type SandboxConfig = z.output<typeof SandboxConfigSchema>;
export type MerchantConfig = z.output<typeof MerchantConfigSchema>;
export type CurrencyConfig = z.output<typeof CurrencyConfigSchema>;
export type FeeRule = z.output<typeof FeeRuleSchema>;
export type PaymentOperatorConfig = z.output<typeof PaymentOperatorConfigSchema>;
export type OutcomeRule = z.output<typeof OutcomeRuleSchema>;
export type ReturnRule = z.output<typeof ReturnRuleSchema>;
export type Timings = z.output<typeof TimingsSchema>;
export type CallbackRetry = z.output<typeof CallbackRetrySchema>;

/** The configuration used when none is given (also shipped as sandbox/default-config.json). */
export function defaultSandboxConfig(): SandboxConfig {
  return structuredClone(SandboxConfigSchema.parse({}));
}

/** Validates a config object; the error lists every problem with its path. */
export function parseSandboxConfig(input: unknown): SandboxConfig {
  const result = SandboxConfigSchema.safeParse(input ?? {});
  if (!result.success) {
    throw new Error(`invalid sandbox config:\n${z.prettifyError(result.error)}`);
  }
  return structuredClone(result.data);
}

export async function loadSandboxConfigFile(path: string): Promise<SandboxConfig> {
  const text = await readFile(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`sandbox config ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseSandboxConfig(json);
}
