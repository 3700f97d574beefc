// Real-world shaped files (test/fixtures/csv, written by make-fixtures.ts): each one's exact outcome.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importPayoutCsv, importPayoutCsvFile } from '../../../main/csv/import';
import { CsvFileError, type CsvImportResult, type CsvOperator } from '../../../main/csv/types';

const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/csv/${name}`, import.meta.url));
const bytesOf = (name: string): Uint8Array => readFileSync(fixture(name));

const operators: CsvOperator[] = [
  { code: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['EUR'] },
  { code: 'US_ACH', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['USD'] },
  { code: 'UK_FPS', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['GBP'] },
  { code: 'JP_ZENGIN', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['JPY'] },
];

const issues = (list: CsvImportResult['errors']): [number, string | null, string][] =>
  list.map((i) => [i.rowNumber, i.column, i.code]);

async function fileError(name: string): Promise<CsvFileError> {
  const error: unknown = await importPayoutCsv(bytesOf(name), { operators }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CsvFileError);
  return error as CsvFileError;
}

describe('CSV fixtures shaped like real exports', () => {
  it('Excel "CSV UTF-8" (BOM, CRLF, friendly headers, quoted comma and quotes, unknown column)', async () => {
    const r = await importPayoutCsvFile(fixture('excel-utf8-bom-crlf.csv'), { operators });
    expect(r.fileName).toBe('excel-utf8-bom-crlf.csv');
    expect([r.encoding, r.delimiter, r.decimalSeparator]).toEqual(['utf-8-bom', ',', '.']);
    expect(r.counts).toEqual({ rows: 4, valid: 4, invalid: 0, warnings: 0 });
    expect(r.totals).toEqual([
      { currencyCode: 'EUR', amountMinor: 136006, count: 2 },
      { currencyCode: 'JPY', amountMinor: 5000, count: 1 },
      { currencyCode: 'USD', amountMinor: 9999, count: 1 },
    ]);
    expect(r.unknownColumns).toEqual(['Cost centre']);
    expect(r.rows.map((row) => row.rowNumber)).toEqual([2, 3, 4, 5]);
    const [first, second, third] = r.rows;
    expect(first?.payout).toEqual({
      idPayout: 'INV-1001',
      amountMinor: 12550,
      currencyCode: 'EUR',
      accountName: 'Jane Example',
      accountNumber: 'DE89370400440532013000',
      paymentOperatorCode: 'EU_SEPA',
      paymentMethodCode: 'BANK_TRANSFER',
      emailAddress: 'jane@example.com',
      reference: 'Invoice 1001',
    });
    expect(first?.extra).toEqual({ 'Cost centre': 'CC-10' });
    expect(second?.payout.accountName).toBe('Müller, Jürgen');
    expect(second?.payout.reference).toBe('Invoice "1002"');
    expect(second?.payout.amountMinor).toBe(123456);
    // Leading zeros survive: cells are read as text, never as numbers.
    expect(third?.payout.accountNumber).toBe('000123456789');
    expect(third?.idGenerated).toBe(true);
    expect(third?.payout.idPayout).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('Excel in a semicolon / decimal-comma locale', async () => {
    const r = await importPayoutCsv(bytesOf('excel-de-semicolon.csv'), { operators });
    expect([r.encoding, r.delimiter, r.decimalSeparator]).toEqual(['utf-8-bom', ';', ',']);
    expect(r.counts).toEqual({ rows: 4, valid: 3, invalid: 1, warnings: 0 });
    expect(r.rows.map((row) => [row.rowNumber, row.payout.amountMinor, row.payout.accountName])).toEqual([
      [2, 123456, 'Jörg Weiß'],
      [3, 1250, 'Anna Nowak'],
      [4, 99, 'Luc Dubois'],
    ]);
    expect(r.rows[2]?.payout.reference).toBe('Frais; divers');
    expect(issues(r.errors)).toEqual([[5, 'Betrag', 'AMOUNT_AMBIGUOUS']]);
    expect(r.errors[0]?.message).toContain('write 1234 if it means thousands, or 1,234 if it has decimals');
    expect(r.totals).toEqual([{ currencyCode: 'EUR', amountMinor: 124805, count: 3 }]);
  });

  it('Excel "Unicode Text" (UTF-16LE with BOM, tab-delimited)', async () => {
    const r = await importPayoutCsv(bytesOf('excel-unicode-text-utf16le.txt'), { operators });
    expect([r.encoding, r.delimiter, r.decimalSeparator]).toEqual(['utf-16le', '\t', '.']);
    expect(r.counts).toEqual({ rows: 2, valid: 2, invalid: 0, warnings: 0 });
    expect(r.rows.map((row) => [row.payout.accountName, row.payout.amountMinor])).toEqual([
      ['Zoë Ångström', 1000],
      ['Smith\tand Sons', 2050],
    ]);
    expect(r.totals).toEqual([{ currencyCode: 'GBP', amountMinor: 3050, count: 2 }]);
  });

  it('UTF-16BE with BOM', async () => {
    const r = await importPayoutCsv(bytesOf('utf16be-bom.csv'), { operators });
    expect(r.encoding).toBe('utf-16be');
    expect(r.rows.map((row) => [row.payout.accountName, row.payout.amountMinor])).toEqual([['Ñandú Ltd', 725]]);
  });

  it('Windows-1252 with accented names (not valid UTF-8)', async () => {
    const r = await importPayoutCsv(bytesOf('windows-1252.csv'), { operators });
    expect(r.encoding).toBe('windows-1252');
    expect(r.rows.map((row) => row.payout.accountName)).toEqual(['René Lefèvre', 'Jürgen Müller', 'Iñigo Muñoz']);
    expect(r.rows[0]?.payout.reference).toBe('Café €5 tip');
    expect(r.totals).toEqual([{ currencyCode: 'EUR', amountMinor: 60000, count: 3 }]);
  });

  it('quoted newlines and quotes, LF, a blank line and trailing delimiters', async () => {
    const r = await importPayoutCsv(bytesOf('quoted-newlines.csv'), { operators });
    expect(r.counts).toEqual({ rows: 3, valid: 3, invalid: 0, warnings: 0 });
    // A multi-line cell is one spreadsheet row; the blank line is row 3.
    expect(r.rows.map((row) => [row.rowNumber, row.payout.idPayout])).toEqual([
      [2, 'Q-1'],
      [4, 'Q-2'],
      [5, 'Q-3'],
    ]);
    expect(r.rows[0]?.payout.accountName).toBe('Line One\nLine Two');
    expect(r.rows[0]?.payout.reference).toBe('He said "pay, now"');
    expect(r.rows[1]?.payout.reference).toBe('multi\r\nline\nreference');
    expect(r.unknownColumns).toEqual([]);
  });

  it('spreadsheet damage and typing mistakes: one exact error per bad row', async () => {
    const r = await importPayoutCsv(bytesOf('spreadsheet-damage.csv'), { operators });
    expect(r.counts).toEqual({ rows: 16, valid: 2, invalid: 14, warnings: 1 });
    expect(issues(r.errors)).toEqual([
      [2, 'accountNumber', 'ACCOUNT_NUMBER_EXPONENT'],
      [3, 'accountNumber', 'ACCOUNT_NUMBER_DIGITS_LOST'],
      [4, 'accountNumber', 'ACCOUNT_NUMBER_NUMERIC'],
      [5, 'amount', 'AMOUNT_EXPONENT'],
      [6, 'amount', 'AMOUNT_PRECISION'],
      [7, 'amount', 'AMOUNT_ZERO'],
      [8, 'amount', 'AMOUNT_NEGATIVE'],
      [9, 'amount', 'AMOUNT_AMBIGUOUS'],
      [10, 'accountNumber', 'ACCOUNT_NUMBER_IBAN'],
      [11, 'idPayout', 'ID_DUPLICATE'],
      [12, 'emailAddress', 'EMAIL_FORMAT'],
      [13, 'paymentOperatorCode', 'OPERATOR_CURRENCY'],
      [14, 'paymentOperatorCode', 'OPERATOR_CURRENCY'],
      [15, 'amount', 'AMOUNT_PRECISION'],
    ]);
    expect(r.errors.find((e) => e.rowNumber === 11)?.message).toContain('also used in row 2');
    expect(r.errors.find((e) => e.rowNumber === 14)?.message).toContain('operators for EUR by BANK_TRANSFER: EU_SEPA');
    expect(issues(r.warnings)).toEqual([[17, null, 'DUPLICATE_ROW']]);
    expect(r.warnings[0]?.message).toContain('duplicate of row 16');
    expect(r.totals).toEqual([{ currencyCode: 'EUR', amountMinor: 5000, count: 2 }]);
  });

  it('ragged rows are row errors naming the row; trailing empty delimiters are tolerated', async () => {
    const r = await importPayoutCsv(bytesOf('ragged-rows.csv'), { operators });
    expect(r.counts).toEqual({ rows: 4, valid: 2, invalid: 2, warnings: 0 });
    expect(issues(r.errors)).toEqual([
      [3, null, 'RAGGED_ROW'],
      [4, null, 'RAGGED_ROW'],
    ]);
    expect(r.errors[0]?.message).toBe(
      'row 3 has 7 values but the header has 6 columns; a value probably contains the delimiter without quotes around it; put such values in double quotes',
    );
    expect(r.errors[1]?.message).toContain('row 4 has 5 values but the header has 6 columns');
    expect(r.rows.map((row) => row.rowNumber)).toEqual([2, 5]);
  });

  it('unterminated quote: a file error naming the row where the quote opens', async () => {
    const error = await fileError('unterminated-quote.csv');
    expect(error.code).toBe('UNTERMINATED_QUOTE');
    expect(error.rowNumber).toBe(3);
    expect(error.message).toContain('Row 3 opens a quoted value');
  });

  it('binary junk, empty file, header only, missing column', async () => {
    expect((await fileError('binary-junk.bin')).code).toBe('BINARY_FILE');
    expect((await fileError('empty.csv')).code).toBe('EMPTY_FILE');
    expect((await fileError('header-only.csv')).code).toBe('NO_ROWS');
    const missing = await fileError('missing-column.csv');
    expect(missing.code).toBe('MISSING_COLUMNS');
    expect(missing.columns).toEqual(['accountNumber']);
    expect(missing.message).toContain('"Acount number"');
  });
});
