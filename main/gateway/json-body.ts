// Minified JSON request bodies with exact amounts. Amounts are written as JSON number literals taken
// verbatim from the decimal text of the minor units (gatewayNumberLiteral), never through a float,
// and the resulting string is both what gets signed and what axios sends, byte for byte.
import { gatewayNumberLiteral } from '../domain/money';
import { GatewayError } from './errors';

/** Significant digits a double (what a JSON parser on the other side uses) always reproduces exactly. */
export const MAX_EXACT_DIGITS = 15;

/** A JSON number whose text is fixed in advance ("1250.5", "100"). */
export class JsonNumberLiteral {
  constructor(readonly text: string) {
    if (!/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text)) throw new RangeError(`"${text}" is not a plain JSON number literal`);
  }
}

/** The amount as a JSON literal; refuses amounts a receiving JSON parser could not hold exactly. */
export function amountLiteral(amountMinor: number, decimals: number): JsonNumberLiteral {
  const text = gatewayNumberLiteral(amountMinor, decimals);
  if (text.replace(/^-?0*\.?0*/, '').replace('.', '').length > MAX_EXACT_DIGITS) {
    throw new GatewayError('validation', `amount ${text} has more than ${MAX_EXACT_DIGITS} significant digits and cannot be sent exactly`, { code: 'AMOUNT_TOO_PRECISE' });
  }
  return new JsonNumberLiteral(text);
}

export type JsonBodyValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | JsonNumberLiteral
  | readonly JsonBodyValue[]
  | { readonly [key: string]: JsonBodyValue };

/**
 * Serialises like JSON.stringify without whitespace (properties in insertion order, undefined
 * properties left out), except that JsonNumberLiteral values are written verbatim.
 */
export function minifiedJson(value: JsonBodyValue): string {
  if (value instanceof JsonNumberLiteral) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError('a request body cannot carry a non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v: JsonBodyValue) => minifiedJson(v === undefined ? null : v)).join(',')}]`;
  const parts: string[] = [];
  for (const [key, v] of Object.entries(value as { readonly [key: string]: JsonBodyValue })) {
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${minifiedJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}
