// Money on the wire is a JSON number in major units (1250.5); inside the sandbox it is always an integer in
// minor units. Conversions go through the decimal text of the number, never through float arithmetic.
import { SandboxError } from './errors';
import type { FeeRule } from './config';

const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** Converts a wire amount to minor units; refuses negatives, exponents and more decimals than the currency has. */
export function minorFromWire(amount: number, decimals: number, currencyCode: string): number {
  if (!Number.isFinite(amount)) throw new SandboxError('INVALID_AMOUNT', 'amount must be a finite number');
  const match = PLAIN_DECIMAL.exec(String(amount));
  if (!match) {
    throw new SandboxError('INVALID_AMOUNT', `amount ${String(amount)} is not a plain non-negative decimal`);
  }
  const whole = match[1] ?? '0';
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) {
    throw new SandboxError(
      'INVALID_AMOUNT',
      `amount ${String(amount)} has ${fraction.length} decimals; ${currencyCode} allows ${decimals}`,
    );
  }
  const minor = Number(whole + fraction.padEnd(decimals, '0'));
  if (!Number.isSafeInteger(minor)) throw new SandboxError('INVALID_AMOUNT', `amount ${String(amount)} is too large`);
  return minor;
}

/** Converts minor units to the wire number, e.g. (125050, 2) → 1250.5. */
export function wireFromMinor(minor: number, decimals: number): number {
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(decimals + 1, '0');
  const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return Number(negative ? `-${text}` : text);
}

/** Fee in minor units: fixed part plus basis points of the amount (rounded half up), clamped to min/max. */
export function feeMinor(amountMinor: number, rule: FeeRule | undefined): number {
  if (!rule) return 0;
  const proportional = (BigInt(amountMinor) * BigInt(rule.basisPoints) + 5_000n) / 10_000n;
  let fee = rule.fixedMinor + Number(proportional);
  if (rule.minMinor !== undefined) fee = Math.max(fee, rule.minMinor);
  if (rule.maxMinor !== undefined) fee = Math.min(fee, rule.maxMinor);
  return fee;
}
