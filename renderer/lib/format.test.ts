import { describe, expect, it } from 'vitest';
import { formatAmount, fractionDigitsOf } from './format';
import { sumAmounts, totalsByCurrency } from './money';

// The formatter follows the process's locale; compare digits only (no grouping, "." as the decimal point).
const decimalSign = new Intl.NumberFormat().formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.';
const groupSign = new Intl.NumberFormat().formatToParts(12345678).find((p) => p.type === 'group')?.value ?? ',';
function digits(text: string): string {
  return text.split(groupSign).join('').split(decimalSign).join('.').replace(/[^\d.-]/g, '');
}

describe('formatAmount', () => {
  it('keeps every fraction digit of the string, whatever ISO 4217 says for the currency', () => {
    // A gateway that keeps EUR with three decimals: ISO's two would round 10.125 to 10.13.
    expect(digits(formatAmount('10.125', 'EUR'))).toBe('10.125');
    expect(digits(formatAmount('0.005', 'EUR'))).toBe('0.005');
    // JPY has no minor unit in ISO; a gateway with two must not lose them.
    expect(digits(formatAmount('100.50', 'JPY'))).toBe('100.50');
    // KWD has three in ISO; a gateway with two shows two.
    expect(digits(formatAmount('7.10', 'KWD'))).toBe('7.10');
  });

  it('shows no fraction for a whole amount written without one', () => {
    expect(digits(formatAmount('100', 'JPY'))).toBe('100');
    expect(digits(formatAmount('1250', 'EUR'))).toBe('1250');
  });

  it('is exact beyond the float range (the string is never parsed to a number)', () => {
    expect(digits(formatAmount('9007199254740993.07', 'EUR'))).toBe('9007199254740993.07');
    expect(digits(formatAmount('-0.10', 'USD'))).toBe('-0.10');
  });

  it('pads to minDecimals but never rounds below the string', () => {
    expect(digits(formatAmount('1250.5', 'EUR', 2))).toBe('1250.50');
    expect(digits(formatAmount('1.2345', 'EUR', 2))).toBe('1.2345');
  });

  it('names the currency, also one Intl does not know', () => {
    expect(formatAmount('12.50', 'EUR')).toContain('EUR');
    const odd = formatAmount('12.505', 'ZZ1');
    expect(odd).toContain('ZZ1');
    expect(digits(odd.replace('ZZ1', ''))).toBe('12.505');
  });

  it('shows what it cannot read as received', () => {
    expect(formatAmount('12,50', 'EUR')).toBe('12,50 EUR');
    expect(formatAmount('1e3', 'EUR')).toBe('1e3 EUR');
    expect(formatAmount('', 'EUR')).toBe('—');
    expect(formatAmount(null, 'EUR')).toBe('—');
  });

  it('counts fraction digits', () => {
    expect(fractionDigitsOf('12.500')).toBe(3);
    expect(fractionDigitsOf('7')).toBe(0);
  });
});

describe('sumAmounts / totalsByCurrency', () => {
  it('adds decimal strings exactly', () => {
    // 0.1 + 0.2 is 0.30000000000000004 in floats.
    expect(sumAmounts(['0.10', '0.20'])).toBe('0.30');
    expect(sumAmounts(['10.125', '0.5'])).toBe('10.625');
    expect(sumAmounts(['100', '250'])).toBe('350');
    expect(sumAmounts([])).toBe('0');
    expect(sumAmounts(['9007199254740993.07', '0.01'])).toBe('9007199254740993.08');
    expect(sumAmounts(['-1.50', '0.25'])).toBe('-1.25');
  });

  it('groups by currency in order of appearance', () => {
    const m = (amount: string, currencyCode: string) => ({ money: { amount, currencyCode } });
    expect(totalsByCurrency([m('1.10', 'EUR'), m('5', 'JPY'), m('2.20', 'EUR')])).toEqual([
      { currencyCode: 'EUR', count: 2, amount: '3.30' },
      { currencyCode: 'JPY', count: 1, amount: '5' },
    ]);
  });
});
