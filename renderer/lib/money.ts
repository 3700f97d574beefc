// Exact sums of the decimal strings main sends (totals shown before something is sent again). The
// strings become BigInt minor units, never floats, so no total is rounded or out of range.
import { fractionDigitsOf } from './format';

const PLAIN_DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

function toMinor(text: string, decimals: number): bigint {
  const m = PLAIN_DECIMAL.exec(text.trim());
  if (!m) throw new Error(`"${text}" is not a plain decimal amount`);
  const [, sign, whole = '0', fraction = ''] = m;
  const minor = BigInt(whole + fraction.padEnd(decimals, '0'));
  return sign ? -minor : minor;
}

function fromMinor(minor: bigint, decimals: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(decimals + 1, '0');
  const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return negative ? `-${text}` : text;
}

/** Sum of decimal strings of one currency, written with the most fraction digits among them. */
export function sumAmounts(amounts: readonly string[]): string {
  const decimals = amounts.reduce((d, a) => Math.max(d, fractionDigitsOf(a.trim())), 0);
  return fromMinor(amounts.reduce((sum, a) => sum + toMinor(a, decimals), 0n), decimals);
}

export interface CurrencyTotal {
  currencyCode: string;
  count: number;
  amount: string;
}

/** Count and exact total per currency, in order of first appearance. */
export function totalsByCurrency(items: readonly { money: { amount: string; currencyCode: string } }[]): CurrencyTotal[] {
  const byCode = new Map<string, string[]>();
  for (const { money } of items) {
    const list = byCode.get(money.currencyCode) ?? [];
    list.push(money.amount);
    byCode.set(money.currencyCode, list);
  }
  return [...byCode.entries()].map(([currencyCode, amounts]) => ({ currencyCode, count: amounts.length, amount: sumAmounts(amounts) }));
}
