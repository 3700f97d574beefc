// Account numbers damaged by a spreadsheet. Excel reads a long digit string as a number: it shows it in
// exponent form ("1.23457E+11"), keeps only 15 significant digits (123456789012345678 → 123456789012345000),
// appends ".0" when exported from some tools, and strips leading zeros. The first three leave marks we can
// see; stripped leading zeros do not, so for those we rely on the IBAN check digits (when the number is an
// IBAN) and on the "bank details changed" warning against the journal.
import { compactIban, hasValidIbanChecksum, looksLikeIban } from '../domain/iban';
import type { CsvIssueCode } from './types';

const EXPONENT_FORM = /^\d+(?:[.,]\d+)?[eE][+-]?\d+$/;
const NUMBER_WITH_ZERO_DECIMALS = /^\d{4,}[.,]0+$/;
const NUMBER_WITH_GROUPING = /^\d{1,3}(?:,\d{3}){2,}$/;
const EXCEL_SIGNIFICANT_DIGITS = 15;

const TEXT_FIX =
  'format the column as Text in the spreadsheet, copy the account number again from the original source, and export again';

export interface AccountNumberProblem {
  code: CsvIssueCode;
  message: string;
}

/** A form suitable for comparing two account numbers: no spaces, upper case. */
export function accountKey(accountNumber: string): string {
  return compactIban(accountNumber);
}

export function checkAccountNumber(value: string): AccountNumberProblem | null {
  // Starts with a letter: only the IBAN rule can apply (the number-shaped damage starts with a digit).
  const first = value.charCodeAt(0);
  if (first < 48 || first > 57) return looksLikeIban(value) && !hasValidIbanChecksum(value) ? ibanProblem(value) : null;
  if (EXPONENT_FORM.test(value)) {
    return {
      code: 'ACCOUNT_NUMBER_EXPONENT',
      message: `"${value}" is in exponent notation: the spreadsheet turned the account number into a number and lost digits; ${TEXT_FIX}`,
    };
  }
  if (/^\d+$/.test(value) && value.length > EXCEL_SIGNIFICANT_DIGITS && /^0+$/.test(value.slice(EXCEL_SIGNIFICANT_DIGITS))) {
    return {
      code: 'ACCOUNT_NUMBER_DIGITS_LOST',
      message: `"${value}" ends in zeros after the 15th digit, which is how a spreadsheet rounds a long number (it keeps 15 digits); ${TEXT_FIX}`,
    };
  }
  if (NUMBER_WITH_ZERO_DECIMALS.test(value) || NUMBER_WITH_GROUPING.test(value)) {
    return {
      code: 'ACCOUNT_NUMBER_NUMERIC',
      message: `"${value}" is formatted as a number (decimals or thousands separators), so the spreadsheet may have changed it; ${TEXT_FIX}`,
    };
  }
  return null;
}

function ibanProblem(value: string): AccountNumberProblem {
  return {
    code: 'ACCOUNT_NUMBER_IBAN',
    message: `"${value}" looks like an IBAN but its check digits do not match, so a character is wrong or missing; copy the IBAN again from the beneficiary's bank details`,
  };
}
