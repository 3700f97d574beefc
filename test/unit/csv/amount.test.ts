// The separator rule in main/csv/amount.ts, case by case, in both modes.
import { describe, expect, it } from 'vitest';
import { parseCsvAmount, type DecimalSeparator } from '../../../main/csv/amount';

const parse = (text: string, d: DecimalSeparator = '.', decimals = 2, maxAmountMinor?: number) =>
  parseCsvAmount(text, { currencyCode: decimals === 0 ? 'JPY' : decimals === 3 ? 'KWD' : 'EUR', decimals, decimalSeparator: d, maxAmountMinor });
const minor = (text: string, d: DecimalSeparator = '.', decimals = 2) => {
  const r = parse(text, d, decimals);
  return r.ok ? r.amountMinor : r.code;
};

describe('parseCsvAmount', () => {
  it('reads plain decimals exactly into minor units', () => {
    expect(minor('125.5')).toBe(12550);
    expect(minor(' 0.07 ')).toBe(7);
    expect(minor('00012.30')).toBe(1230);
    expect(minor('90071992547409.91')).toBe(9007199254740991);
    expect(minor('1.234', '.', 3)).toBe(1234);
    expect(minor('5000', '.', 0)).toBe(5000);
  });

  it('dot mode: accepts comma grouping only with decimals, and space/apostrophe grouping always', () => {
    expect(minor('1,234.56')).toBe(123456);
    expect(minor('1,234,567.00')).toBe(123456700);
    expect(minor('1 234.56')).toBe(123456);
    expect(minor('1\u00a0234\u00a0567')).toBe(123456700);
    expect(minor("1'234.50")).toBe(123450);
    expect(minor('1,234')).toBe('AMOUNT_AMBIGUOUS');
    expect(minor('1,234,567')).toBe('AMOUNT_AMBIGUOUS');
    expect(minor('1.234.567')).toBe('AMOUNT_AMBIGUOUS');
    expect(minor('12,50')).toBe('AMOUNT_DECIMAL_SEPARATOR');
    expect(minor('1.234,56')).toBe('AMOUNT_DECIMAL_SEPARATOR');
    expect(minor('12,34.56')).toBe('AMOUNT_FORMAT');
    expect(minor('1 23.00')).toBe('AMOUNT_FORMAT');
  });

  it('comma mode: the mirror image', () => {
    expect(minor('12,50', ',')).toBe(1250);
    expect(minor('1.234,56', ',')).toBe(123456);
    expect(minor('1 234,56', ',')).toBe(123456);
    expect(minor('1234', ',')).toBe(123400);
    expect(minor('1.234', ',')).toBe('AMOUNT_AMBIGUOUS');
    expect(minor('1.234.567', ',')).toBe('AMOUNT_AMBIGUOUS');
    expect(minor('12.50', ',')).toBe('AMOUNT_DECIMAL_SEPARATOR');
    expect(minor('1,234.56', ',')).toBe('AMOUNT_DECIMAL_SEPARATOR');
  });

  it('calls a formula a formula, not a negative amount', () => {
    for (const cell of ['=HYPERLINK("https://x.example","12.00")', '=SUM(A1:A3)', '@SUM(A1)', '+A1*2', '-B2', '=-5']) expect(minor(cell)).toBe('AMOUNT_FORMULA');
    const r = parseCsvAmount('=HYPERLINK("https://x.example","12.00")', { currencyCode: 'EUR', decimals: 2, decimalSeparator: '.' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toMatch(/is a spreadsheet formula, not an amount; paste the column as values only/);
      expect(r.message).not.toMatch(/negative/);
    }
    expect(minor('-5')).toBe('AMOUNT_NEGATIVE');
  });

  it('refuses zero, negatives, exponents, text and too many decimals with the fix in the message', () => {
    expect(minor('0')).toBe('AMOUNT_ZERO');
    expect(minor('0.00')).toBe('AMOUNT_ZERO');
    expect(minor('-5')).toBe('AMOUNT_NEGATIVE');
    expect(minor('\u22125')).toBe('AMOUNT_NEGATIVE');
    expect(minor('(5.00)')).toBe('AMOUNT_NEGATIVE');
    expect(minor('5.00-')).toBe('AMOUNT_NEGATIVE');
    expect(minor('1.5E+3')).toBe('AMOUNT_EXPONENT');
    expect(minor('2e5')).toBe('AMOUNT_EXPONENT');
    expect(minor('NaN')).toBe('AMOUNT_FORMAT');
    expect(minor('Infinity')).toBe('AMOUNT_FORMAT');
    expect(minor('€12.00')).toBe('AMOUNT_FORMAT');
    expect(minor('+12')).toBe('AMOUNT_FORMAT');
    expect(minor('.5')).toBe('AMOUNT_FORMAT');
    expect(minor('5.')).toBe('AMOUNT_FORMAT');
    expect(minor('')).toBe('REQUIRED');
    expect(minor('12.345')).toBe('AMOUNT_PRECISION');
    expect(minor('10.5', '.', 0)).toBe('AMOUNT_PRECISION');
    expect(minor('99999999999999999')).toBe('AMOUNT_RANGE');

    const precision = parse('12.345');
    expect(precision.ok ? '' : precision.message).toBe('"12.345" has 3 decimals, but EUR allows 2; round it to 2 decimals in the spreadsheet');
    const ambiguous = parse('1,234');
    expect(ambiguous.ok ? '' : ambiguous.message).toContain('write 1234 if it means thousands, or 1.234 if it has decimals');
    const wrongSeparator = parse('12,50');
    expect(wrongSeparator.ok ? '' : wrongSeparator.message).toContain('write 12.50');
  });

  it('applies the per-row maximum in minor units', () => {
    expect(parse('100.00', '.', 2, 10000)).toEqual({ ok: true, amountMinor: 10000 });
    const over = parse('100.01', '.', 2, 10000);
    expect(over.ok ? '' : over.code).toBe('AMOUNT_OVER_LIMIT');
    expect(over.ok ? '' : over.message).toContain('maximum of 100.00');
  });
});
