// The approval policy of a profile: how many approvals (0–3) a payout or batch needs, by amount band of
// its total per currency (a batch's rows are summed per currency; the largest need of any currency
// counts), plus N when a row pays a new payee or one whose bank details changed. Versioned: each change
// is a new version, signed by an admin; approvals name the version they were given under, so a change of
// policy voids them. Version 0 is the built-in default and is unsigned.
import { heldRoleAt, type Person } from '../people/roles';
import { personSignatureValid } from '../people/person-key';
import type { UnlockedSession } from '../people/key-vault';
import { canonicalBytes } from './canonical';
import { compareDecimal, type Manifest } from './manifest';
import { CodedError } from '../domain/coded-error';

export const MAX_APPROVALS = 3;
/** A profile's environment (the profile schema's, restated: approvals import only domain, keys, journal, people). */
export type PolicyEnvironment = 'TEST' | 'LIVE';
/** Any currency without bands of its own. */
export const ANY_CURRENCY = '*';
/** LIVE's default: one approval once a currency's total reaches this many major units. */
export const LIVE_DEFAULT_THRESHOLD = '1000';

export interface AmountBand {
  /** Total of one currency (major units, decimal string) from which this band applies. */
  atLeast: string;
  approvals: number;
}

export interface PolicyRules {
  /** Bands per currency code, or ANY_CURRENCY; the band with the highest atLeast not above the total applies. */
  bands: Record<string, AmountBand[]>;
  /** Extra approvals when any row pays a new payee or one whose bank details changed. */
  newOrChangedPayee: number;
  /**
   * Rows the preparer confirmed as possible duplicates of earlier payouts (signed in the manifest) count like a new or
   * changed payee: the same newOrChangedPayee extra approvals. Absent: they are only shown to approvers.
   */
  countPossibleDuplicates?: boolean;
  /**
   * With two or more admins: granting the approver or admin role, taking admin away, revoking an admin and
   * setting a policy need two admins' signatures (main/trust/chain-state.ts). Absent: one admin is enough.
   */
  secondAdmin?: boolean;
  /**
   * Every approval and every admin action needs a code from the person's authenticator app (or a recovery code)
   * besides their passphrase (main/desk/second-factor-gate.ts). Absent: only people who set one up are asked,
   * and approvals on LIVE under the built-in default.
   */
  secondFactor?: boolean;
}

export interface ApprovalPolicy {
  profileId: string;
  version: number;
  rules: PolicyRules;
  /** The admin who set it; null for the built-in default (version 0). */
  setBy: string | null;
  setAt: number;
  /** Ed25519 over policySigningBytes, base64; null for version 0. */
  signature: string | null;
}

export class PolicyError extends CodedError<'POLICY_INVALID'> {
  constructor(message: string) {
    super('POLICY_INVALID', message);
  }
}

/** LIVE: one approval from LIVE_DEFAULT_THRESHOLD of any currency; TEST: none. */
export function defaultPolicy(profileId: string, environment: PolicyEnvironment): ApprovalPolicy {
  const bands: Record<string, AmountBand[]> = environment === 'LIVE' ? { [ANY_CURRENCY]: [{ atLeast: LIVE_DEFAULT_THRESHOLD, approvals: 1 }] } : {};
  return { profileId, version: 0, rules: { bands, newOrChangedPayee: 0 }, setBy: null, setAt: 0, signature: null };
}

const approvalsOk = (n: number) => Number.isInteger(n) && n >= 0 && n <= MAX_APPROVALS;

/** Refuses rules a desk could not apply exactly; returns them with bands sorted. */
export function checkRules(rules: PolicyRules): PolicyRules {
  if (!approvalsOk(rules.newOrChangedPayee)) throw new PolicyError(`newOrChangedPayee must be a whole number from 0 to ${MAX_APPROVALS}`);
  const bands: Record<string, AmountBand[]> = {};
  for (const [currency, list] of Object.entries(rules.bands)) {
    if (currency !== ANY_CURRENCY && !/^[A-Z]{3}$/.test(currency)) throw new PolicyError(`"${currency}" is not a currency code (or ${ANY_CURRENCY})`);
    if (list.length > 10) throw new PolicyError(`${currency}: at most 10 bands`);
    for (const band of list) {
      if (!/^\d+(\.\d+)?$/.test(band.atLeast)) throw new PolicyError(`${currency}: "${band.atLeast}" is not a plain non-negative decimal amount`);
      if (!approvalsOk(band.approvals)) throw new PolicyError(`${currency}: approvals must be a whole number from 0 to ${MAX_APPROVALS}`);
    }
    const sorted = [...list].sort((a, b) => compareDecimal(a.atLeast, b.atLeast));
    if (sorted.some((b, i) => i > 0 && compareDecimal(b.atLeast, sorted[i - 1]!.atLeast) === 0)) throw new PolicyError(`${currency}: two bands start at the same amount`);
    bands[currency] = sorted.map((b) => ({ atLeast: b.atLeast, approvals: b.approvals }));
  }
  if (rules.secondAdmin !== undefined && typeof rules.secondAdmin !== 'boolean') throw new PolicyError('secondAdmin must be true or false');
  if (rules.secondFactor !== undefined && typeof rules.secondFactor !== 'boolean') throw new PolicyError('secondFactor must be true or false');
  if (rules.countPossibleDuplicates !== undefined && typeof rules.countPossibleDuplicates !== 'boolean') throw new PolicyError('countPossibleDuplicates must be true or false');
  // Written only when on, so a policy without the switches signs as it always did.
  return {
    bands, newOrChangedPayee: rules.newOrChangedPayee, ...(rules.secondAdmin === true ? { secondAdmin: true } : {}), ...(rules.secondFactor === true ? { secondFactor: true } : {}),
    ...(rules.countPossibleDuplicates === true ? { countPossibleDuplicates: true } : {}),
  };
}

export interface Requirement {
  required: number;
  perCurrency: { currency: string; total: string; approvals: number }[];
  payeeExtra: number;
  /** Rows signed as possible duplicates that this policy counts (0 when it does not count them). */
  possibleDuplicates?: number;
}

/**
 * How many approvals the manifest needs under the policy; `newOrChangedPayees`: rows flagged by the payee book. Rows
 * the preparer signed as possible duplicates count like them when the policy says so (countPossibleDuplicates).
 */
export function requiredApprovals(policy: ApprovalPolicy, manifest: Pick<Manifest, 'totals'> & Partial<Pick<Manifest, 'possibleDuplicates'>>, newOrChangedPayees = 0): Requirement {
  const perCurrency = manifest.totals.map((t) => {
    const bands = policy.rules.bands[t.currency] ?? policy.rules.bands[ANY_CURRENCY] ?? [];
    let approvals = 0;
    for (const band of bands) if (compareDecimal(t.amount, band.atLeast) >= 0) approvals = band.approvals;
    return { currency: t.currency, total: t.amount, approvals };
  });
  const possibleDuplicates = policy.rules.countPossibleDuplicates === true ? (manifest.possibleDuplicates?.length ?? 0) : 0;
  const payeeExtra = newOrChangedPayees + possibleDuplicates > 0 ? policy.rules.newOrChangedPayee : 0;
  const required = Math.min(MAX_APPROVALS, Math.max(0, ...perCurrency.map((c) => c.approvals)) + payeeExtra);
  return { required, perCurrency, payeeExtra, ...(possibleDuplicates > 0 ? { possibleDuplicates } : {}) };
}

export function policySigningBytes(p: Omit<ApprovalPolicy, 'signature'>): Buffer {
  return canonicalBytes({ purpose: 'payout-desk/policy', version: 1, policy: { profileId: p.profileId, version: p.version, rules: p.rules, setBy: p.setBy, setAt: p.setAt } });
}

/** A new version of the policy, signed by the admin whose session this is (roles are checked by verifyPolicy). */
export function signPolicy(session: UnlockedSession, input: { profileId: string; version: number; rules: PolicyRules; setAt: number }): ApprovalPolicy {
  const unsigned = { profileId: input.profileId, version: input.version, rules: checkRules(input.rules), setBy: session.personId, setAt: input.setAt };
  return { ...unsigned, signature: session.sign(policySigningBytes(unsigned)) };
}

/**
 * Whether a policy record may be applied: version 0 is the unsigned default; any other version must carry
 * a signature by a person who held the admin role when they signed it and was not revoked by then.
 * Null when it may; the reason otherwise.
 */
export function policyProblem(policy: ApprovalPolicy, people: ReadonlyMap<string, Person>): string | null {
  if (policy.version === 0) return policy.setBy === null && policy.signature === null ? null : 'version 0 is the built-in default and carries no signature';
  if (!policy.setBy || !policy.signature) return `policy version ${policy.version} carries no admin signature`;
  const admin = people.get(policy.setBy);
  if (!admin) return `policy version ${policy.version} is signed by no person of this desk`;
  if (!personSignatureValid(policySigningBytes(policy), policy.signature, admin.publicKey)) return `the signature on policy version ${policy.version} does not verify (the policy was altered or forged)`;
  if (admin.revokedAt !== null && admin.revokedAt <= policy.setAt) return `policy version ${policy.version} was signed by ${admin.name} after their revocation`;
  if (!heldRoleAt(admin, 'admin', policy.setAt)) return `policy version ${policy.version} was signed by ${admin.name}, who was not an admin then`;
  return null;
}
