// Money is exact: amounts live as integer minor units (safe integers) and cross boundaries as
// decimal strings. No floating-point arithmetic is ever done on an amount.
import { CodedError } from './coded-error';

export interface Money {
  /** Decimal string in major units, e.g. "1250.50". */
  amount: string;
  currencyCode: string;
}

export class MoneyError extends CodedError<'AMOUNT_FORMAT' | 'AMOUNT_PRECISION' | 'AMOUNT_RANGE'> {}

const PLAIN_DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** Parses a plain decimal string ("1250.5", "-3", "0.07") into minor units for the given decimals. */
export function parseMinor(text: string, decimals: number): number {
  const match = PLAIN_DECIMAL.exec(text.trim());
  if (!match) throw new MoneyError('AMOUNT_FORMAT', `"${text}" is not a plain decimal number (digits with an optional "." and decimals)`);
  const [, sign, whole = '', fraction = ''] = match;
  if (fraction.length > decimals) {
    throw new MoneyError(
      'AMOUNT_PRECISION',
      decimals === 0
        ? `"${text}" has decimals, but the currency has no minor unit`
        : `"${text}" has ${fraction.length} decimals; the currency allows at most ${decimals}`,
    );
  }
  const digits = (whole + fraction.padEnd(decimals, '0')).replace(/^0+(?=\d)/, '');
  const minor = Number(digits);
  if (!Number.isSafeInteger(minor)) throw new MoneyError('AMOUNT_RANGE', `"${text}" is too large`);
  return sign ? -minor : minor;
}

/** Formats minor units as a plain decimal string with exactly `decimals` places. */
export function formatMinor(minor: number, decimals: number): string {
  if (!Number.isSafeInteger(minor)) throw new MoneyError('AMOUNT_RANGE', `${minor} is not a whole number of minor units`);
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(decimals + 1, '0');
  const whole = decimals === 0 ? digits : digits.slice(0, -decimals);
  const fraction = decimals === 0 ? '' : `.${digits.slice(-decimals)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/**
 * Converts a JSON number from the gateway into minor units. The number's shortest round-trip text
 * is parsed as a decimal, so 1250.5 becomes 125050 for two decimals without any float arithmetic.
 */
export function minorFromGatewayNumber(value: number, decimals: number): number {
  if (!Number.isFinite(value)) throw new MoneyError('AMOUNT_FORMAT', `${value} is not a finite amount`);
  const text = String(value);
  if (/e/i.test(text)) throw new MoneyError('AMOUNT_RANGE', `${text} is outside the range of a payment amount`);
  return parseMinor(text, decimals);
}

/**
 * The JSON text of an amount for a request body. The decimal string is emitted as a JSON number
 * literal verbatim (trailing zeros trimmed), so what is signed is exactly the decimal the user typed.
 */
export function gatewayNumberLiteral(minor: number, decimals: number): string {
  const text = formatMinor(minor, decimals);
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

/** Exact sum of minor-unit amounts; throws rather than losing precision. */
export function sumMinor(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) {
    total += v;
    if (!Number.isSafeInteger(total)) throw new MoneyError('AMOUNT_RANGE', 'total exceeds the exact integer range');
  }
  return total;
}
