// A plain-data snapshot of the sandbox for tests and GET /_sandbox/state: proves "exactly once" (create attempts
// per id vs. stored payments), counts 429s and lists every callback with its attempts.
import type { CallbackRecord } from './callbacks';
import type { SandboxContext } from './context';
import type { FaultConfig } from './faults';
import type { PayinStatusValue, PayoutStatusValue, StatusChange } from './store';

export type PayoutStateEntry = {
  idPayout: string;
  merchantCode: string;
  status: PayoutStatusValue;
  amountMinor: number;
  feeMinor: number;
  currencyCode: string;
  accountNumber: string;
  failureReason?: string;
  createdAt: string;
  processedAt?: string;
  history: StatusChange[];
};

export type PayinStateEntry = {
  idPayin: string;
  merchantCode: string;
  status: PayinStatusValue;
  amountMinor: number;
  currencyCode: string;
  failureReason?: string;
  createdAt: string;
  expireAt: string;
  processedAt?: string;
  history: StatusChange[];
};

export type SandboxState = {
  payouts: PayoutStateEntry[];
  payins: PayinStateEntry[];
  createAttempts: { payouts: Record<string, number>; payins: Record<string, number> };
  /** Requests answered 429. */
  rateLimitedCount: number;
  callbacks: CallbackRecord[];
  /** merchantCode → currencyCode → balance in minor units. */
  balances: Record<string, Record<string, { availableMinor: number; reservedMinor: number }>>;
  faults: FaultConfig;
};

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

export function snapshotState(ctx: SandboxContext): SandboxState {
  const { store } = ctx;
  const balances: SandboxState['balances'] = {};
  for (const merchant of store.merchants.values()) {
    balances[merchant.code] = Object.fromEntries(
      [...merchant.balances].map(([currency, balance]) => [currency, { ...balance }]),
    );
  }
  return {
    payouts: [...store.payouts.values()].map((p) => ({
      idPayout: p.idPayout,
      merchantCode: p.merchantCode,
      status: p.status,
      amountMinor: p.amountMinor,
      feeMinor: p.feeMinor,
      currencyCode: p.currencyCode,
      accountNumber: p.account.accountNumber,
      failureReason: p.failureReason,
      createdAt: new Date(p.createdAt).toISOString(),
      processedAt: iso(p.processedAt),
      history: p.history.map((h) => ({ ...h })),
    })),
    payins: [...store.payins.values()].map((p) => ({
      idPayin: p.idPayin,
      merchantCode: p.merchantCode,
      status: p.status,
      amountMinor: p.amountMinor,
      currencyCode: p.currencyCode,
      failureReason: p.failureReason,
      createdAt: new Date(p.createdAt).toISOString(),
      expireAt: new Date(p.expireAt).toISOString(),
      processedAt: iso(p.processedAt),
      history: p.history.map((h) => ({ ...h })),
    })),
    createAttempts: {
      payouts: Object.fromEntries(store.payoutCreateAttempts),
      payins: Object.fromEntries(store.payinCreateAttempts),
    },
    rateLimitedCount: store.rateLimitedCount,
    callbacks: ctx.callbacks.records.map((c) => ({ ...c, attempts: c.attempts.map((a) => ({ ...a })) })),
    balances,
    faults: ctx.faults.current(),
  };
}
