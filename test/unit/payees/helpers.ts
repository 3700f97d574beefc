// Payee versions for the payee book's unit tests.
import { changeDigest, keysOf, type PayeeDetails, type PayeeVersion } from '../../../main/payees/payee';

export const T0 = 1_700_000_000_000;

export function details(overrides: Partial<PayeeDetails> = {}): PayeeDetails {
  return { name: 'Grace Hopper', accountNumber: 'NL91ABNA0417164300', operatorCode: 'EU_SEPA', emailAddress: 'grace@example.com', referenceDefault: null, ...overrides };
}

/** A version of a payee: in force at `at` unless waiting. */
export function version(payeeId: string, v: number, d: Partial<PayeeDetails> = {}, options: { at?: number; waiting?: boolean; by?: string | null; base?: PayeeDetails | null; bankChange?: boolean } = {}): PayeeVersion {
  const after = details(d);
  const at = options.at ?? T0 + v;
  const by = options.by === undefined ? 'paula' : options.by;
  return {
    payeeId, version: v, baseVersion: v > 1 ? v - 1 : null, ...after, ...keysOf(after), source: 'hand', sourceRef: null, bankChange: options.bankChange ?? false,
    changeDigest: changeDigest({ profileId: 'prof-1', payeeId, version: v, before: options.base ?? null, after, createdBy: by, createdAt: at }),
    createdAt: at, createdBy: by, effectiveAt: options.waiting ? null : at, closedAt: null, closedBy: null, closeReason: null,
  };
}
