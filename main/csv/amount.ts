// Amount cells → exact minor units. Never through a float: the text is reduced to a plain decimal
// string and handed to the domain's parseMinor.
//
// The rule for separators (one rule, applied the same way in both modes):
// - The file has one decimal separator D: "," when the delimiter is ";" or the user says so, else ".".
// - Accepted: "1234", "1234D56", and thousands grouping with 3-digit groups, where the group mark is a space
//   (also no-break spaces) or an apostrophe in any case, or the *other* separator only when a D-decimal part
//   follows: dot mode accepts "1,234.56" and "1 234.56"; comma mode accepts "1.234,56" and "1 234,56".
// - Refused as ambiguous: the other separator without decimals ("1,234" in dot mode could be 1234 or 1.234,
//   "1.234.567" in comma mode), or D used more than once ("1.234.567" in dot mode).
// - Refused as the wrong separator: "12,50" in dot mode, "12.50" or "1,234.56" in comma mode.
import { looksLikeFormula } from './formula';
import { formatMinor, MoneyError, parseMinor } from '../domain/money';
import type { CsvIssueCode } from './types';

export type DecimalSeparator = '.' | ',';

export interface AmountContext {
  currencyCode: string;
  decimals: number;
  decimalSeparator: DecimalSeparator;
  maxAmountMinor?: number;
}

export type AmountParse = { ok: true; amountMinor: number } | { ok: false; code: CsvIssueCode; message: string };

const EXPONENT = /^[+-]?\d*[.,]?\d+[eE][+-]?\d+$/;
// The common case, "1234" or "1234.56", skips the separator analysis.
const PLAIN_DOT = /^(\d+)(?:\.(\d+))?$/;
const PLAIN_COMMA = /^(\d+)(?:,(\d+))?$/;
const ALLOWED_CHARS = /^[\d.,\u00a0\u202f' ]+$/;

function fail(code: CsvIssueCode, message: string): AmountParse {
  return { ok: false, code, message };
}

function sepName(sep: DecimalSeparator): string {
  return sep === '.' ? 'a dot (".")' : 'a comma (",")';
}

/** Checks "1 234" / "1,234,567" style grouping and returns the bare digits, or null when the groups are wrong. */
function ungroup(whole: string, groupMarks: RegExp): string | null {
  if (/^\d+$/.test(whole)) return whole;
  const marks = new Set(whole.replace(/\d/g, ''));
  if (marks.size !== 1) return null;
  const [mark] = [...marks];
  if (mark === undefined || !groupMarks.test(mark)) return null;
  const groups = whole.split(mark);
  const [first, ...rest] = groups;
  if (!first || !/^\d{1,3}$/.test(first) || !rest.every((g) => /^\d{3}$/.test(g))) return null;
  return groups.join('');
}

/** Splits the text into whole and fraction by the rule above, or explains why it cannot. */
function splitDecimal(text: string, d: DecimalSeparator): { whole: string; fraction: string } | AmountParse {
  const other: DecimalSeparator = d === '.' ? ',' : '.';
  const dCount = text.split(d).length - 1;
  const otherCount = text.split(other).length - 1;
  const example = d === '.' ? '1234.56' : '1234,56';

  if (dCount > 1) {
    return fail(
      'AMOUNT_AMBIGUOUS',
      `"${text}" has more than one ${sepName(d)}, which this file uses for decimals; write it without thousands separators, e.g. ${text.split(d).join('')}`,
    );
  }
  if (otherCount > 0 && dCount === 0) {
    const afterLast = text.slice(text.lastIndexOf(other) + 1);
    if (otherCount === 1 && !/^\d{3}$/.test(afterLast)) {
      return fail(
        'AMOUNT_DECIMAL_SEPARATOR',
        `"${text}" uses ${sepName(other)} for decimals, but this file uses ${sepName(d)}; write ${text.replace(other, d)}` +
          (d === '.' ? ' (or import with the decimal-comma option)' : ''),
      );
    }
    const whole = text.split(other).join('');
    const fix = otherCount === 1 ? `${whole} if it means thousands, or ${text.replace(other, d)} if it has decimals` : whole;
    return fail(
      'AMOUNT_AMBIGUOUS',
      `"${text}" is ambiguous: ${sepName(other)} could be a thousands separator or a decimal point; write ${fix}`,
    );
  }
  if (dCount === 1) {
    const at = text.indexOf(d);
    const whole = text.slice(0, at);
    const fraction = text.slice(at + 1);
    if (fraction.includes(other)) {
      return fail(
        'AMOUNT_DECIMAL_SEPARATOR',
        `"${text}" uses ${sepName(other)} for decimals, but this file uses ${sepName(d)}; write it like ${example}` +
          (d === '.' ? ' (or import with the decimal-comma option)' : ''),
      );
    }
    if (!/^\d+$/.test(fraction) || whole === '') {
      return fail('AMOUNT_FORMAT', `"${text}" is not a number; write it like ${example}`);
    }
    return { whole, fraction };
  }
  return { whole: text, fraction: '' };
}

/** Parses one amount cell into minor units of its currency, or returns a row error with the fix. */
export function parseCsvAmount(raw: string, ctx: AmountContext): AmountParse {
  const text = raw.trim();
  const d = ctx.decimalSeparator;
  const example = d === '.' ? '1234.56' : '1234,56';
  if (!text) return fail('REQUIRED', `the amount is empty; write the amount in ${ctx.currencyCode || 'the row currency'}, e.g. ${example}`);
  // Before the sign checks: "=HYPERLINK(…)" ends with ")" and "-A1" starts with "-", yet neither is a negative number.
  if (looksLikeFormula(text)) {
    return fail('AMOUNT_FORMULA', `"${text}" is a spreadsheet formula, not an amount; paste the column as values only (in the spreadsheet: copy, then Paste Special → Values), e.g. ${example}`);
  }
  if (/^[-\u2212(]|-$|\)$/.test(text)) {
    return fail('AMOUNT_NEGATIVE', `"${text}" is negative; a payout amount must be greater than zero (remove the minus sign, or the row)`);
  }
  if (EXPONENT.test(text)) {
    return fail(
      'AMOUNT_EXPONENT',
      `"${text}" is in exponent notation, which spreadsheets use for very large or small numbers; format the column as a number with decimals and write it in full, e.g. ${example}`,
    );
  }
  if (!ALLOWED_CHARS.test(text)) {
    return fail('AMOUNT_FORMAT', `"${text}" is not a number; write only digits and the decimal separator, e.g. ${example} (the currency goes in the currency column)`);
  }
  const plain = d === '.' ? PLAIN_DOT.exec(text) : PLAIN_COMMA.exec(text);
  const split = plain ? { whole: plain[1] ?? '', fraction: plain[2] ?? '' } : splitDecimal(text, d);
  if ('ok' in split) return split;

  // splitDecimal only lets the other separator through when a decimal part follows, so it may group here.
  const groupMarks = d === '.' ? /[ \u00a0\u202f',]/ : /[ \u00a0\u202f'.]/;
  const whole = ungroup(split.whole, groupMarks);
  if (whole === null) {
    return fail('AMOUNT_FORMAT', `"${text}" has misplaced thousands separators (groups must have 3 digits); write it without them, e.g. ${example}`);
  }

  let amountMinor: number;
  try {
    amountMinor = parseMinor(split.fraction ? `${whole}.${split.fraction}` : whole, ctx.decimals);
  } catch (error) {
    if (error instanceof MoneyError && error.code === 'AMOUNT_PRECISION') {
      return fail(
        'AMOUNT_PRECISION',
        ctx.decimals === 0
          ? `"${text}" has decimals, but ${ctx.currencyCode} has no minor unit; write a whole number`
          : `"${text}" has ${split.fraction.length} decimals, but ${ctx.currencyCode} allows ${ctx.decimals}; round it to ${ctx.decimals} decimals in the spreadsheet`,
      );
    }
    return fail('AMOUNT_RANGE', `"${text}" is too large to be a payout amount; check the cell`);
  }
  if (amountMinor === 0) return fail('AMOUNT_ZERO', `the amount is zero; a payout must be greater than zero (fix the amount or delete the row)`);
  if (ctx.maxAmountMinor !== undefined && amountMinor > ctx.maxAmountMinor) {
    const limit = formatMinor(ctx.maxAmountMinor, ctx.decimals);
    return fail(
      'AMOUNT_OVER_LIMIT',
      `"${text}" ${ctx.currencyCode} is over this profile's per-payout maximum of ${limit}; split the payment or ask an administrator to raise the limit`,
    );
  }
  return { ok: true, amountMinor };
}
