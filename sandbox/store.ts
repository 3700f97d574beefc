// In-memory state of the sandbox: merchants with their keys and balances, stored payments, counters.
// Balances: `available` is what can still be spent; a payout in flight moves amount + fee to `reserved`.
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { MerchantConfig, SandboxConfig } from './config';
import { SandboxError } from './errors';

export type Account = { accountName: string; accountNumber: string };
export type StatusChange = { status: string; at: string };

export const PAYOUT_STATUSES = ['PENDING', 'PROCESSING', 'SUCCESS', 'FAILED', 'RETURNED'] as const;
export type PayoutStatusValue = (typeof PAYOUT_STATUSES)[number];
export const PAYIN_STATUSES = ['PENDING', 'SUCCESS', 'EXPIRED', 'FAILED'] as const;
export type PayinStatusValue = (typeof PAYIN_STATUSES)[number];

export type PayoutRecord = {
  idPayout: string;
  merchantCode: string;
  amountMinor: number;
  currencyCode: string;
  feeMinor: number;
  paymentMethodCode: string;
  paymentOperatorCode: string;
  account: Account;
  emailAddress: string;
  callbackUrl?: string;
  status: PayoutStatusValue;
  createdAt: number;
  processedAt?: number;
  failureReason?: string;
  /** amount + fee held while the payout is in flight; 0 when nothing could be reserved. */
  reservedMinor: number;
  history: StatusChange[];
};

export type PayinRecord = {
  idPayin: string;
  merchantCode: string;
  amountMinor: number;
  currencyCode: string;
  paymentMethodCode: string;
  paymentOperatorCode: string;
  customerAccount: Account;
  emailAddress: string;
  callbackUrl?: string;
  returnUrl?: string;
  status: PayinStatusValue;
  createdAt: number;
  expireAt: number;
  processedAt?: number;
  failureReason?: string;
  reference: string;
  /** Where the customer pays to: a virtual account at the operator's bank. */
  payTo: Account & { bankCode: string; bankName: string };
  history: StatusChange[];
};

export type Balance = { availableMinor: number; reservedMinor: number };

export type MerchantState = {
  code: string;
  channelName: string;
  secret?: string;
  publicKeys: KeyObject[];
  balances: Map<string, Balance>;
};

export class SandboxStore {
  readonly merchants = new Map<string, MerchantState>();
  readonly payouts = new Map<string, PayoutRecord>();
  readonly payins = new Map<string, PayinRecord>();
  readonly payoutCreateAttempts = new Map<string, number>();
  readonly payinCreateAttempts = new Map<string, number>();
  rateLimitedCount = 0;
  /** Called after every change worth keeping (keys, balances, payments, counters); `--state` writes then. */
  onChange: () => void = () => undefined;

  constructor(config: SandboxConfig) {
    for (const merchant of config.merchants) this.merchants.set(merchant.code, merchantState(merchant));
  }

  merchant(code: string): MerchantState | undefined {
    return this.merchants.get(code);
  }

  requireMerchant(code: string): MerchantState {
    const merchant = this.merchants.get(code);
    if (!merchant) throw new SandboxError('MERCHANT_NOT_FOUND', `merchant ${code} is not configured`);
    return merchant;
  }

  registerPublicKey(merchantCode: string, pem: string): number {
    const merchant = this.requireMerchant(merchantCode);
    merchant.publicKeys.push(parsePublicKey(pem));
    this.onChange();
    return merchant.publicKeys.length;
  }

  balance(merchantCode: string, currencyCode: string): Balance {
    const merchant = this.requireMerchant(merchantCode);
    let balance = merchant.balances.get(currencyCode);
    if (!balance) {
      balance = { availableMinor: 0, reservedMinor: 0 };
      merchant.balances.set(currencyCode, balance);
    }
    return balance;
  }

  /** Adds (or with a negative amount, removes) available funds; the result may not go below zero. */
  fund(merchantCode: string, currencyCode: string, amountMinor: number): Balance {
    if (!Number.isSafeInteger(amountMinor)) {
      throw new SandboxError('INVALID_AMOUNT', 'amountMinor must be a safe integer');
    }
    const balance = this.balance(merchantCode, currencyCode);
    if (balance.availableMinor + amountMinor < 0) {
      throw new SandboxError('INVALID_AMOUNT', `funding would make the ${currencyCode} balance negative`);
    }
    balance.availableMinor += amountMinor;
    this.onChange();
    return { ...balance };
  }

  countCreateAttempt(kind: 'payout' | 'payin', id: string): void {
    const map = kind === 'payout' ? this.payoutCreateAttempts : this.payinCreateAttempts;
    map.set(id, (map.get(id) ?? 0) + 1);
    this.onChange();
  }
}

function merchantState(config: MerchantConfig): MerchantState {
  const balances = new Map<string, Balance>();
  for (const [currency, availableMinor] of Object.entries(config.balancesMinor)) {
    balances.set(currency, { availableMinor, reservedMinor: 0 });
  }
  return {
    code: config.code,
    channelName: config.channelName,
    secret: config.secret,
    publicKeys: config.publicKeysPem.map(parsePublicKey),
    balances,
  };
}

export function parsePublicKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch {
    throw new SandboxError('VALIDATION_FAILED', 'the body is not a PEM public key');
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new SandboxError('VALIDATION_FAILED', `the key is ${key.asymmetricKeyType ?? 'unknown'}, expected RSA`);
  }
  return key;
}
