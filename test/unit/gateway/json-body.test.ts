// Request bodies: minified like JSON.stringify, with amounts written verbatim from minor units.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonNumberLiteral, amountLiteral, minifiedJson } from '../../../main/gateway/json-body';
import { minorFromGatewayNumber } from '../../../main/domain/money';

describe('minifiedJson', () => {
  it('matches JSON.stringify for plain JSON values, leaving out undefined properties', () => {
    const value = { b: 'x"y', a: [1, null, true, { c: 'ü\n' }], u: undefined, n: -0.5 };
    expect(minifiedJson(value)).toBe(JSON.stringify(value));
    fc.assert(fc.property(fc.jsonValue(), (v) => minifiedJson(v as never) === JSON.stringify(v)));
  });

  it('writes amount literals exactly as the decimal of the minor units', () => {
    expect(minifiedJson({ amount: amountLiteral(125050, 2) })).toBe('{"amount":1250.5}');
    expect(minifiedJson({ amount: amountLiteral(1, 3) })).toBe('{"amount":0.001}');
    expect(minifiedJson({ amount: amountLiteral(700, 0) })).toBe('{"amount":700}');
    expect(minifiedJson({ amount: amountLiteral(10, 2) })).toBe('{"amount":0.1}');
  });

  it('round-trips every amount of up to 15 significant digits: the gateway reads back the same minor units', () => {
    // A double holds any decimal of 15 significant digits exactly enough to print it back unchanged,
    // so a JSON parser on the other side sees the very amount the user typed.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999_999_999_999 }), fc.constantFrom(0, 2, 3), (minor, decimals) => {
        const body = minifiedJson({ amount: amountLiteral(minor, decimals) });
        const parsed = JSON.parse(body) as { amount: number };
        expect(minorFromGatewayNumber(parsed.amount, decimals)).toBe(minor);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses malformed literals and non-finite numbers', () => {
    expect(() => new JsonNumberLiteral('1e5')).toThrow();
    expect(() => new JsonNumberLiteral('01')).toThrow();
    expect(() => minifiedJson({ a: Number.NaN })).toThrow(/non-finite/);
  });
});
