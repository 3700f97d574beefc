import { describe, expect, it } from 'vitest';
import { formatMinor, gatewayNumberLiteral, minorFromGatewayNumber, parseMinor, sumMinor } from '../../main/domain/money';
import { currencyDecimals } from '../../main/domain/currencies';

describe('money', () => {
  it('parses decimals exactly into minor units', () => {
    expect(parseMinor('1250.50', 2)).toBe(125050);
    expect(parseMinor('0.07', 2)).toBe(7);
    expect(parseMinor('0.1', 2) + parseMinor('0.2', 2)).toBe(parseMinor('0.3', 2));
    expect(parseMinor('12', 0)).toBe(12);
    expect(parseMinor('1.234', 3)).toBe(1234);
  });
  it('refuses more decimals than the currency has, and non-plain numbers', () => {
    expect(() => parseMinor('1.005', 2)).toThrow(/at most 2/);
    expect(() => parseMinor('5.5', 0)).toThrow(/no minor unit/);
    expect(() => parseMinor('1e3', 2)).toThrow(/plain decimal/);
    expect(() => parseMinor('1,5', 2)).toThrow(/plain decimal/);
    expect(() => parseMinor('99999999999999999', 2)).toThrow(/too large/);
  });
  it('formats minor units with the currency decimals', () => {
    expect(formatMinor(125050, 2)).toBe('1250.50');
    expect(formatMinor(7, 2)).toBe('0.07');
    expect(formatMinor(-7, 3)).toBe('-0.007');
    expect(formatMinor(1500, 0)).toBe('1500');
  });
  it('reads gateway numbers and writes them back without float arithmetic', () => {
    expect(minorFromGatewayNumber(1250.5, 2)).toBe(125050);
    expect(minorFromGatewayNumber(0.3, 2)).toBe(30);
    expect(gatewayNumberLiteral(125050, 2)).toBe('1250.5');
    expect(gatewayNumberLiteral(125000, 2)).toBe('1250');
    expect(gatewayNumberLiteral(1500, 0)).toBe('1500');
  });
  it('sums exactly and uses ISO 4217 decimals as fallback', () => {
    expect(sumMinor([10, 20, 30])).toBe(60);
    expect(currencyDecimals('JPY')).toBe(0);
    expect(currencyDecimals('KWD')).toBe(3);
    expect(currencyDecimals('EUR')).toBe(2);
    expect(currencyDecimals('EUR', new Map([['EUR', 3]]))).toBe(3);
  });
});
