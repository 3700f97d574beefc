// Real-world shaped files (test/fixtures/csv, written by make-fixtures.ts): each one's exact outcome —
// encoding, delimiter, decimal separator, counts, totals, every row, and every error and warning with its
// row, column, code and message; for broken files the file error's code, row, columns and message.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { importPayoutCsv, importPayoutCsvFile } from '../../../main/csv/import';
import {
  CsvFileError,
  MAX_CSV_BYTES,
  type CsvImportOptions,
  type CsvImportResult,
  type CsvOperator,
  type CsvValidRow,
} from '../../../main/csv/types';
import type { PayoutDraft } from '../../../main/domain/payout';

const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/csv/${name}`, import.meta.url));
const bytesOf = (name: string): Uint8Array => readFileSync(fixture(name));
const sha256Of = (name: string): string => createHash('sha256').update(bytesOf(name)).digest('hex');

const operators: CsvOperator[] = [
  { code: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['EUR'] },
  { code: 'US_ACH', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['USD'] },
  { code: 'UK_FPS', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['GBP'] },
  { code: 'JP_ZENGIN', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['JPY'] },
];

/** A generated idPayout: a v4 UUID (newPaymentId). */
const GENERATED_ID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/) as unknown as string;

type Draft = Omit<PayoutDraft, 'idPayout' | 'paymentMethodCode'> & { idPayout?: string; paymentMethodCode?: string };

/** The row the importer should produce; no idPayout means a generated one. */
function validRow(rowNumber: number, draft: Draft, extra: Record<string, string> = {}): CsvValidRow {
  const { idPayout, paymentMethodCode = 'BANK_TRANSFER', ...rest } = draft;
  return {
    rowNumber,
    payout: { idPayout: idPayout ?? GENERATED_ID, ...rest, paymentMethodCode } as PayoutDraft,
    idGenerated: idPayout === undefined,
    extra,
  };
}

/** Everything in the result; rows are compared on their own so a failure shows which one differs. */
function withoutRows({ rows: _rows, ...rest }: CsvImportResult): Omit<CsvImportResult, 'rows'> {
  return rest;
}

async function importFixture(name: string, options: CsvImportOptions = {}): Promise<CsvImportResult> {
  return importPayoutCsv(bytesOf(name), { operators, fileName: name, ...options });
}

interface FileErrorShape {
  code: string;
  rowNumber: number | null;
  columns: readonly string[];
  message: string;
}

async function fileErrorOf(run: Promise<unknown>): Promise<FileErrorShape> {
  const error: unknown = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CsvFileError);
  const { code, rowNumber, columns, message } = error as CsvFileError;
  return { code, rowNumber, columns, message };
}

const fixtureError = (name: string): Promise<FileErrorShape> => fileErrorOf(importFixture(name));

const NO_ISSUES = { errors: [], warnings: [] };

describe('CSV fixtures shaped like real exports', () => {
  it('Excel "CSV UTF-8" (BOM, CRLF, friendly headers, quoted comma and quotes, unknown column)', async () => {
    const r = await importPayoutCsvFile(fixture('excel-utf8-bom-crlf.csv'), { operators });
    expect(withoutRows(r)).toEqual({
      fileName: 'excel-utf8-bom-crlf.csv',
      sha256: sha256Of('excel-utf8-bom-crlf.csv'),
      encoding: 'utf-8-bom',
      delimiter: ',',
      decimalSeparator: '.',
      ...NO_ISSUES,
      totals: [
        { currencyCode: 'EUR', amountMinor: 136006, count: 2 },
        { currencyCode: 'JPY', amountMinor: 5000, count: 1 },
        { currencyCode: 'USD', amountMinor: 9999, count: 1 },
      ],
      counts: { rows: 4, valid: 4, invalid: 0, warnings: 0 },
      unknownColumns: ['Cost centre'],
    });
    expect(r.rows).toEqual([
      validRow(
        2,
        {
          idPayout: 'INV-1001', amountMinor: 12550, currencyCode: 'EUR', accountName: 'Jane Example',
          accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'jane@example.com', reference: 'Invoice 1001',
        },
        { 'Cost centre': 'CC-10' },
      ),
      validRow(
        3,
        {
          idPayout: 'INV-1002', amountMinor: 123456, currencyCode: 'EUR', accountName: 'Müller, Jürgen',
          accountNumber: 'FR1420041010050500013M02606', paymentOperatorCode: 'EU_SEPA', emailAddress: 'juergen@example.de', reference: 'Invoice "1002"',
        },
        { 'Cost centre': 'CC-20' },
      ),
      // Leading zeros survive: cells are read as text, never as numbers. The empty id is generated.
      validRow(
        4,
        { amountMinor: 9999, currencyCode: 'USD', accountName: 'Acme Corp.', accountNumber: '000123456789', paymentOperatorCode: 'US_ACH', emailAddress: 'ap@acme.example' },
        { 'Cost centre': 'CC-10' },
      ),
      validRow(
        5,
        { idPayout: 'INV-1004', amountMinor: 5000, currencyCode: 'JPY', accountName: 'Sato Hanako', accountNumber: '0012345678', paymentOperatorCode: 'JP_ZENGIN', emailAddress: 'sato@example.jp' },
        { 'Cost centre': '' },
      ),
    ]);
  });

  describe('Excel in a semicolon / decimal-comma locale', () => {
    it('reads the decimal comma because the delimiter is ";"', async () => {
      const r = await importFixture('excel-de-semicolon.csv');
      expect(withoutRows(r)).toEqual({
        fileName: 'excel-de-semicolon.csv',
        sha256: sha256Of('excel-de-semicolon.csv'),
        encoding: 'utf-8-bom',
        delimiter: ';',
        decimalSeparator: ',',
        errors: [
          {
            rowNumber: 5, column: 'Betrag', code: 'AMOUNT_AMBIGUOUS',
            message: '"1.234" is ambiguous: a dot (".") could be a thousands separator or a decimal point; write 1234 if it means thousands, or 1,234 if it has decimals',
          },
        ],
        warnings: [],
        totals: [{ currencyCode: 'EUR', amountMinor: 124805, count: 3 }],
        counts: { rows: 4, valid: 3, invalid: 1, warnings: 0 },
        unknownColumns: [],
      });
      expect(r.rows).toEqual([
        validRow(2, { amountMinor: 123456, currencyCode: 'EUR', accountName: 'Jörg Weiß', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'joerg@example.de', reference: 'Rechnung 7' }),
        validRow(3, { amountMinor: 1250, currencyCode: 'EUR', accountName: 'Anna Nowak', accountNumber: 'AT611904300234573201', paymentOperatorCode: 'EU_SEPA', emailAddress: 'anna@example.at' }),
        validRow(4, { amountMinor: 99, currencyCode: 'EUR', accountName: 'Luc Dubois', accountNumber: 'BE68539007547034', paymentOperatorCode: 'EU_SEPA', emailAddress: 'luc@example.be', reference: 'Frais; divers' }),
      ]);
    });

    it('with decimalComma: false every decimal comma is a row error, never read as something else', async () => {
      const r = await importFixture('excel-de-semicolon.csv', { decimalComma: false });
      expect(withoutRows(r)).toEqual({
        fileName: 'excel-de-semicolon.csv',
        sha256: sha256Of('excel-de-semicolon.csv'),
        encoding: 'utf-8-bom',
        delimiter: ';',
        decimalSeparator: '.',
        errors: [
          {
            rowNumber: 2, column: 'Betrag', code: 'AMOUNT_DECIMAL_SEPARATOR',
            message: '"1.234,56" uses a comma (",") for decimals, but this file uses a dot ("."); write it like 1234.56 (or import with the decimal-comma option)',
          },
          {
            rowNumber: 3, column: 'Betrag', code: 'AMOUNT_DECIMAL_SEPARATOR',
            message: '"12,50" uses a comma (",") for decimals, but this file uses a dot ("."); write 12.50 (or import with the decimal-comma option)',
          },
          {
            rowNumber: 4, column: 'Betrag', code: 'AMOUNT_DECIMAL_SEPARATOR',
            message: '"0,99" uses a comma (",") for decimals, but this file uses a dot ("."); write 0.99 (or import with the decimal-comma option)',
          },
          // In dot mode "1.234" is one point two three four: three decimals, too many for EUR.
          {
            rowNumber: 5, column: 'Betrag', code: 'AMOUNT_PRECISION',
            message: '"1.234" has 3 decimals, but EUR allows 2; round it to 2 decimals in the spreadsheet',
          },
        ],
        warnings: [],
        totals: [],
        counts: { rows: 4, valid: 0, invalid: 4, warnings: 0 },
        unknownColumns: [],
      });
      expect(r.rows).toEqual([]);
    });
  });

  describe('a comma-delimited file with decimal commas (quoted amounts)', () => {
    it('with decimalComma: true the quoted amounts are read exactly', async () => {
      const r = await importFixture('decimal-comma-comma-delimited.csv', { decimalComma: true });
      expect(withoutRows(r)).toEqual({
        fileName: 'decimal-comma-comma-delimited.csv',
        sha256: sha256Of('decimal-comma-comma-delimited.csv'),
        encoding: 'utf-8',
        delimiter: ',',
        decimalSeparator: ',',
        ...NO_ISSUES,
        totals: [{ currencyCode: 'EUR', amountMinor: 134706, count: 3 }],
        counts: { rows: 3, valid: 3, invalid: 0, warnings: 0 },
        unknownColumns: [],
      });
      expect(r.rows).toEqual([
        validRow(2, { amountMinor: 1250, currencyCode: 'EUR', accountName: 'Anna Nowak', accountNumber: 'AT611904300234573201', paymentOperatorCode: 'EU_SEPA', emailAddress: 'anna@example.at', reference: 'Miete' }),
        validRow(3, { amountMinor: 123456, currencyCode: 'EUR', accountName: 'Jörg Weiß', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'joerg@example.de', reference: 'Rechnung 7, Teil 2' }),
        validRow(4, { amountMinor: 10000, currencyCode: 'EUR', accountName: 'Luc Dubois', accountNumber: 'BE68539007547034', paymentOperatorCode: 'EU_SEPA', emailAddress: 'luc@example.be' }),
      ]);
    });

    it('without the option the decimal commas are row errors that name the option', async () => {
      const r = await importFixture('decimal-comma-comma-delimited.csv');
      expect(withoutRows(r)).toEqual({
        fileName: 'decimal-comma-comma-delimited.csv',
        sha256: sha256Of('decimal-comma-comma-delimited.csv'),
        encoding: 'utf-8',
        delimiter: ',',
        decimalSeparator: '.',
        errors: [
          {
            rowNumber: 2, column: 'Betrag', code: 'AMOUNT_DECIMAL_SEPARATOR',
            message: '"12,50" uses a comma (",") for decimals, but this file uses a dot ("."); write 12.50 (or import with the decimal-comma option)',
          },
          {
            rowNumber: 3, column: 'Betrag', code: 'AMOUNT_DECIMAL_SEPARATOR',
            message: '"1.234,56" uses a comma (",") for decimals, but this file uses a dot ("."); write it like 1234.56 (or import with the decimal-comma option)',
          },
        ],
        warnings: [],
        totals: [{ currencyCode: 'EUR', amountMinor: 10000, count: 1 }],
        counts: { rows: 3, valid: 1, invalid: 2, warnings: 0 },
        unknownColumns: [],
      });
      expect(r.rows).toEqual([
        validRow(4, { amountMinor: 10000, currencyCode: 'EUR', accountName: 'Luc Dubois', accountNumber: 'BE68539007547034', paymentOperatorCode: 'EU_SEPA', emailAddress: 'luc@example.be' }),
      ]);
    });

    it('decimalComma: true on a file written with decimal dots: the dots are row errors, not thousands', async () => {
      const r = await importFixture('excel-utf8-bom-crlf.csv', { decimalComma: true });
      expect(withoutRows(r)).toEqual({
        fileName: 'excel-utf8-bom-crlf.csv',
        sha256: sha256Of('excel-utf8-bom-crlf.csv'),
        encoding: 'utf-8-bom',
        delimiter: ',',
        decimalSeparator: ',',
        errors: [
          {
            rowNumber: 2, column: 'Amount', code: 'AMOUNT_DECIMAL_SEPARATOR',
            message: '"125.50" uses a dot (".") for decimals, but this file uses a comma (","); write 125,50',
          },
          {
            rowNumber: 3, column: 'Amount', code: 'AMOUNT_DECIMAL_SEPARATOR',
            message: '"1,234.56" uses a dot (".") for decimals, but this file uses a comma (","); write it like 1234,56',
          },
          {
            rowNumber: 4, column: 'Amount', code: 'AMOUNT_DECIMAL_SEPARATOR',
            message: '"99.99" uses a dot (".") for decimals, but this file uses a comma (","); write 99,99',
          },
        ],
        warnings: [],
        totals: [{ currencyCode: 'JPY', amountMinor: 5000, count: 1 }],
        counts: { rows: 4, valid: 1, invalid: 3, warnings: 0 },
        unknownColumns: ['Cost centre'],
      });
      expect(r.rows.map((row) => [row.rowNumber, row.payout.amountMinor])).toEqual([[5, 5000]]);
    });
  });

  it('Excel "Unicode Text" (UTF-16LE with BOM, tab-delimited)', async () => {
    const r = await importFixture('excel-unicode-text-utf16le.txt');
    expect(withoutRows(r)).toEqual({
      fileName: 'excel-unicode-text-utf16le.txt',
      sha256: sha256Of('excel-unicode-text-utf16le.txt'),
      encoding: 'utf-16le',
      delimiter: '\t',
      decimalSeparator: '.',
      ...NO_ISSUES,
      totals: [{ currencyCode: 'GBP', amountMinor: 3050, count: 2 }],
      counts: { rows: 2, valid: 2, invalid: 0, warnings: 0 },
      unknownColumns: [],
    });
    expect(r.rows).toEqual([
      validRow(2, { amountMinor: 1000, currencyCode: 'GBP', accountName: 'Zoë Ångström', accountNumber: 'GB82WEST12345698765432', paymentOperatorCode: 'UK_FPS', emailAddress: 'zoe@example.co.uk', reference: 'Tab\u2011free' }),
      // A quoted tab inside a tab-delimited file stays in the cell.
      validRow(3, { amountMinor: 2050, currencyCode: 'GBP', accountName: 'Smith\tand Sons', accountNumber: 'GB82WEST12345698765432', paymentOperatorCode: 'UK_FPS', emailAddress: 'smith@example.co.uk' }),
    ]);
  });

  it('UTF-16BE with BOM', async () => {
    const r = await importFixture('utf16be-bom.csv');
    expect(withoutRows(r)).toEqual({
      fileName: 'utf16be-bom.csv',
      sha256: sha256Of('utf16be-bom.csv'),
      encoding: 'utf-16be',
      delimiter: ',',
      decimalSeparator: '.',
      ...NO_ISSUES,
      totals: [{ currencyCode: 'EUR', amountMinor: 725, count: 1 }],
      counts: { rows: 1, valid: 1, invalid: 0, warnings: 0 },
      unknownColumns: [],
    });
    expect(r.rows).toEqual([
      validRow(2, { amountMinor: 725, currencyCode: 'EUR', accountName: 'Ñandú Ltd', accountNumber: 'ES9121000418450200051332', paymentOperatorCode: 'EU_SEPA', emailAddress: 'nandu@example.es' }),
    ]);
  });

  it('Windows-1252 with accented names and a euro sign (not valid UTF-8)', async () => {
    const r = await importFixture('windows-1252.csv');
    expect(withoutRows(r)).toEqual({
      fileName: 'windows-1252.csv',
      sha256: sha256Of('windows-1252.csv'),
      encoding: 'windows-1252',
      delimiter: ',',
      decimalSeparator: '.',
      ...NO_ISSUES,
      totals: [{ currencyCode: 'EUR', amountMinor: 60000, count: 3 }],
      counts: { rows: 3, valid: 3, invalid: 0, warnings: 0 },
      unknownColumns: [],
    });
    expect(r.rows).toEqual([
      // 0x80 is "€" in Windows-1252 (Latin-1 would give U+0080).
      validRow(2, { amountMinor: 10000, currencyCode: 'EUR', accountName: 'René Lefèvre', accountNumber: 'FR1420041010050500013M02606', paymentOperatorCode: 'EU_SEPA', emailAddress: 'rene@example.fr', reference: 'Café €5 tip' }),
      validRow(3, { amountMinor: 20000, currencyCode: 'EUR', accountName: 'Jürgen Müller', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'juergen@example.de' }),
      validRow(4, { amountMinor: 30000, currencyCode: 'EUR', accountName: 'Iñigo Muñoz', accountNumber: 'ES9121000418450200051332', paymentOperatorCode: 'EU_SEPA', emailAddress: 'inigo@example.es' }),
    ]);
  });

  it('quoted newlines and quotes, LF, a blank line and trailing delimiters', async () => {
    const r = await importFixture('quoted-newlines.csv');
    expect(withoutRows(r)).toEqual({
      fileName: 'quoted-newlines.csv',
      sha256: sha256Of('quoted-newlines.csv'),
      encoding: 'utf-8',
      delimiter: ',',
      decimalSeparator: '.',
      ...NO_ISSUES,
      totals: [{ currencyCode: 'EUR', amountMinor: 6000, count: 3 }],
      counts: { rows: 3, valid: 3, invalid: 0, warnings: 0 },
      // The trailing blank header cell is not an unknown column.
      unknownColumns: [],
    });
    // A multi-line cell is one spreadsheet row; the blank line is row 3.
    expect(r.rows).toEqual([
      validRow(2, { idPayout: 'Q-1', amountMinor: 1000, currencyCode: 'EUR', accountName: 'Line One\nLine Two', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'one@example.com', reference: 'He said "pay, now"' }),
      validRow(4, { idPayout: 'Q-2', amountMinor: 2000, currencyCode: 'EUR', accountName: 'Plain Name', accountNumber: 'IT60X0542811101000000123456', paymentOperatorCode: 'EU_SEPA', emailAddress: 'two@example.com', reference: 'multi\r\nline\nreference' }),
      validRow(5, { idPayout: 'Q-3', amountMinor: 3000, currencyCode: 'EUR', accountName: 'Third', accountNumber: 'CH9300762011623852957', paymentOperatorCode: 'EU_SEPA', emailAddress: 'three@example.com' }),
    ]);
  });

  it('spreadsheet damage and typing mistakes: one exact error per bad row', async () => {
    const r = await importFixture('spreadsheet-damage.csv');
    const TEXT_FIX = 'format the column as Text in the spreadsheet, copy the account number again from the original source, and export again';
    expect(withoutRows(r)).toEqual({
      fileName: 'spreadsheet-damage.csv',
      sha256: sha256Of('spreadsheet-damage.csv'),
      encoding: 'utf-8',
      delimiter: ',',
      decimalSeparator: '.',
      errors: [
        { rowNumber: 2, column: 'accountNumber', code: 'ACCOUNT_NUMBER_EXPONENT', message: `"1.23457E+11" is in exponent notation: the spreadsheet turned the account number into a number and lost digits; ${TEXT_FIX}` },
        { rowNumber: 3, column: 'accountNumber', code: 'ACCOUNT_NUMBER_DIGITS_LOST', message: `"123456789012345000" ends in zeros after the 15th digit, which is how a spreadsheet rounds a long number (it keeps 15 digits); ${TEXT_FIX}` },
        { rowNumber: 4, column: 'accountNumber', code: 'ACCOUNT_NUMBER_NUMERIC', message: `"12345678.0" is formatted as a number (decimals or thousands separators), so the spreadsheet may have changed it; ${TEXT_FIX}` },
        { rowNumber: 5, column: 'amount', code: 'AMOUNT_EXPONENT', message: '"1.5E+3" is in exponent notation, which spreadsheets use for very large or small numbers; format the column as a number with decimals and write it in full, e.g. 1234.56' },
        { rowNumber: 6, column: 'amount', code: 'AMOUNT_PRECISION', message: '"12.345" has 3 decimals, but EUR allows 2; round it to 2 decimals in the spreadsheet' },
        { rowNumber: 7, column: 'amount', code: 'AMOUNT_ZERO', message: 'the amount is zero; a payout must be greater than zero (fix the amount or delete the row)' },
        { rowNumber: 8, column: 'amount', code: 'AMOUNT_NEGATIVE', message: '"-5.00" is negative; a payout amount must be greater than zero (remove the minus sign, or the row)' },
        { rowNumber: 9, column: 'amount', code: 'AMOUNT_AMBIGUOUS', message: '"1,234" is ambiguous: a comma (",") could be a thousands separator or a decimal point; write 1234 if it means thousands, or 1.234 if it has decimals' },
        { rowNumber: 10, column: 'accountNumber', code: 'ACCOUNT_NUMBER_IBAN', message: '"DE89370400440532013001" looks like an IBAN but its check digits do not match, so a character is wrong or missing; copy the IBAN again from the beneficiary\'s bank details' },
        { rowNumber: 11, column: 'idPayout', code: 'ID_DUPLICATE', message: 'idPayout "D-1" is also used in row 2; every payout needs its own id (change it or leave it empty)' },
        { rowNumber: 12, column: 'emailAddress', code: 'EMAIL_FORMAT', message: '"not-an-email" is not an e-mail address; write it like jane@example.com' },
        { rowNumber: 13, column: 'paymentOperatorCode', code: 'OPERATOR_CURRENCY', message: 'operator "EU_SEPA" does not pay out in XYZ; no operator pays XYZ by BANK_TRANSFER' },
        { rowNumber: 14, column: 'paymentOperatorCode', code: 'OPERATOR_CURRENCY', message: 'operator "US_ACH" does not pay out in EUR; operators for EUR by BANK_TRANSFER: EU_SEPA' },
        { rowNumber: 15, column: 'amount', code: 'AMOUNT_PRECISION', message: '"10.5" has decimals, but JPY has no minor unit; write a whole number' },
      ],
      warnings: [
        { rowNumber: 17, column: null, code: 'DUPLICATE_ROW', message: 'looks like a duplicate of row 16 (same account, amount and currency); confirm it is intended or delete one of them' },
      ],
      totals: [{ currencyCode: 'EUR', amountMinor: 5000, count: 2 }],
      counts: { rows: 16, valid: 2, invalid: 14, warnings: 1 },
      unknownColumns: [],
    });
    expect(r.rows).toEqual([
      validRow(16, { idPayout: 'D-15', amountMinor: 2500, currencyCode: 'EUR', accountName: 'Good Row', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'n@example.com' }),
      validRow(17, { idPayout: 'D-16', amountMinor: 2500, currencyCode: 'EUR', accountName: 'Good Row Again', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'o@example.com' }),
    ]);
  });

  it('ragged rows are row errors naming the row; trailing empty delimiters are tolerated', async () => {
    const r = await importFixture('ragged-rows.csv');
    expect(withoutRows(r)).toEqual({
      fileName: 'ragged-rows.csv',
      sha256: sha256Of('ragged-rows.csv'),
      encoding: 'utf-8',
      delimiter: ',',
      decimalSeparator: '.',
      errors: [
        {
          rowNumber: 3, column: null, code: 'RAGGED_ROW',
          message: 'row 3 has 7 values but the header has 6 columns; a value probably contains the delimiter without quotes around it; put such values in double quotes',
        },
        {
          rowNumber: 4, column: null, code: 'RAGGED_ROW',
          message: 'row 4 has 5 values but the header has 6 columns; a delimiter is probably missing; give every column a value (empty is fine) so the columns line up',
        },
      ],
      warnings: [],
      totals: [{ currencyCode: 'EUR', amountMinor: 5000, count: 2 }],
      counts: { rows: 4, valid: 2, invalid: 2, warnings: 0 },
      unknownColumns: [],
    });
    expect(r.rows).toEqual([
      validRow(2, { amountMinor: 1000, currencyCode: 'EUR', accountName: 'Fine', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'a@example.com' }),
      validRow(5, { amountMinor: 4000, currencyCode: 'EUR', accountName: 'Trailing Delimiters', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'd@example.com' }),
    ]);
  });
});

describe('broken files: one file error with its exact message', () => {
  it('unterminated quote names the row where the quote opens', async () => {
    expect(await fixtureError('unterminated-quote.csv')).toEqual({
      code: 'UNTERMINATED_QUOTE',
      rowNumber: 3,
      columns: [],
      message:
        'Row 3 opens a quoted value (") that is never closed, so the rest of the file would be read as one cell; add the closing quote in row 3 or remove the opening one.',
    });
  });

  it('binary junk', async () => {
    expect(await fixtureError('binary-junk.bin')).toEqual({
      code: 'BINARY_FILE',
      rowNumber: null,
      columns: [],
      message:
        'The file contains control characters (near character 3, read as windows-1252), so it is not a CSV text file. Save it from the spreadsheet as "CSV UTF-8 (Comma delimited)" and import that file.',
    });
  });

  it('empty file: zero bytes, Excel\'s byte order mark alone, or lines of delimiters only', async () => {
    const empty = {
      code: 'EMPTY_FILE',
      rowNumber: null,
      columns: [],
      message: 'The file is empty. Download the template, fill in one row per payout and import it.',
    };
    expect(await fixtureError('empty.csv')).toEqual(empty);
    expect(await fixtureError('empty-excel-bom.csv')).toEqual(empty);
    expect(await fixtureError('blank-rows-only.csv')).toEqual({
      ...empty,
      message: 'The file holds only blank lines. Download the template, fill in one row per payout and import it.',
    });
  });

  it('header only', async () => {
    expect(await fixtureError('header-only.csv')).toEqual({
      code: 'NO_ROWS',
      rowNumber: null,
      columns: [],
      message: 'The file has a header row but no payout rows below it; add one row per payout.',
    });
  });

  it('a missing required column is one error naming it, its aliases and the columns found', async () => {
    expect(await fixtureError('missing-column.csv')).toEqual({
      code: 'MISSING_COLUMNS',
      rowNumber: 1,
      columns: ['accountNumber'],
      message:
        'The header row (row 1) lacks required column: accountNumber (also: iban, account, accountno). Columns found: "Amount", "Currency", "Beneficiary name", "Acount number", "Operator", "Email". Download the template to see the expected header.',
    });
  });
});

describe('the 50 MB limit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'csv-limit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** A sparse file: its size is real, its blocks are not (nothing is written to disk). */
  const sparseFile = (name: string, size: number): string => {
    const path = join(dir, name);
    writeFileSync(path, '');
    truncateSync(path, size);
    return path;
  };
  const TOO_LARGE = (mb: string): FileErrorShape => ({
    code: 'FILE_TOO_LARGE',
    rowNumber: null,
    columns: [],
    message: `The file is ${mb} MB; the limit is 50 MB per file. Split it into smaller files.`,
  });

  it('refuses bytes over 50 MB with the size rounded up (never "50.0 MB" over a 50 MB limit)', async () => {
    expect(await fileErrorOf(importPayoutCsv(new Uint8Array(MAX_CSV_BYTES + 1)))).toEqual(TOO_LARGE('50.1'));
    expect(await fileErrorOf(importPayoutCsv(new Uint8Array(60 * 1024 * 1024)))).toEqual(TOO_LARGE('60.0'));
  });

  it('importPayoutCsvFile refuses a file over 50 MB from its size, before reading it', async () => {
    expect(await fileErrorOf(importPayoutCsvFile(sparseFile('just-over.csv', MAX_CSV_BYTES + 1)))).toEqual(TOO_LARGE('50.1'));
    // 3 GiB cannot even be read into one buffer (readFile refuses over 2 GiB, which would be READ_FAILED):
    // FILE_TOO_LARGE proves the size was checked first.
    expect(await fileErrorOf(importPayoutCsvFile(sparseFile('huge.csv', 3 * 1024 * 1024 * 1024)))).toEqual(TOO_LARGE('3072.0'));
  });

  it('a file of exactly 50 MB passes the size check (and is then judged on its content)', async () => {
    const error = await fileErrorOf(importPayoutCsvFile(sparseFile('exactly.csv', MAX_CSV_BYTES)));
    expect(error.code).toBe('BINARY_FILE');
  }, 30_000);

  it('a file that is not there is READ_FAILED naming the path', async () => {
    const path = join(dir, 'missing.csv');
    expect(await fileErrorOf(importPayoutCsvFile(path))).toEqual({ code: 'READ_FAILED', rowNumber: null, columns: [], message: `File not found: ${path}` });
  });
});
