// Header aliases, delimiter detection and whole-file header problems.
import { describe, expect, it } from 'vitest';
import { detectDialect } from '../../../main/csv/dialect';
import { columnLetter, fieldForHeader, mapHeader } from '../../../main/csv/headers';
import { importPayoutCsv } from '../../../main/csv/import';
import { CsvFileError } from '../../../main/csv/types';

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
const ROW = '10.00,EUR,Jane,DE89370400440532013000,EU_SEPA,jane@example.com';

describe('header matching', () => {
  it('matches names case-insensitively, ignoring spaces and punctuation, with common aliases', () => {
    expect(fieldForHeader('Amount')).toBe('amount');
    expect(fieldForHeader('CURRENCY')).toBe('currencyCode');
    expect(fieldForHeader(' IBAN ')).toBe('accountNumber');
    expect(fieldForHeader('Account number')).toBe('accountNumber');
    expect(fieldForHeader('Beneficiary name')).toBe('accountName');
    expect(fieldForHeader('Name')).toBe('accountName');
    expect(fieldForHeader('E-mail')).toBe('emailAddress');
    expect(fieldForHeader('Bank code')).toBe('paymentOperatorCode');
    expect(fieldForHeader('Method')).toBe('paymentMethodCode');
    expect(fieldForHeader('Memo')).toBe('reference');
    expect(fieldForHeader('Payout id')).toBe('idPayout');
    expect(fieldForHeader('Währung')).toBe('currencyCode');
    expect(fieldForHeader('Cost centre')).toBeUndefined();
  });

  it('keeps unknown columns, names blank header cells by their letter, ignores trailing blank header cells', () => {
    const map = mapHeader(['amount', 'currency', 'name', 'iban', 'operator', 'email', 'Cost centre', '', 'Notes 2', '', ''], ',');
    expect(map.unknownColumns).toEqual(['Cost centre', 'column H', 'Notes 2']);
    expect(map.columns).toHaveLength(9);
    expect(columnLetter(0)).toBe('A');
    expect(columnLetter(27)).toBe('AB');
  });

  it('reports every missing required column in one error', () => {
    let error: unknown;
    try {
      mapHeader(['amount', 'name', 'Other'], ',');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CsvFileError);
    const fileError = error as CsvFileError;
    expect(fileError.code).toBe('MISSING_COLUMNS');
    expect(fileError.columns).toEqual(['currencyCode', 'accountNumber', 'paymentOperatorCode', 'emailAddress']);
  });

  it('refuses two columns holding the same field', async () => {
    const file = `amount,currency,name,IBAN,Account number,operator,email\n10.00,EUR,Jane,DE89370400440532013000,x,EU_SEPA,j@example.com\n`;
    await expect(importPayoutCsv(enc(file))).rejects.toMatchObject({ code: 'DUPLICATE_COLUMN', columns: ['IBAN', 'Account number'] });
  });
});

describe('delimiter detection', () => {
  it('counts delimiters in the header line outside quotes', () => {
    expect(detectDialect('a,b,c\n1;2;3;4;5\n')).toEqual({ delimiter: ',', sepLine: false });
    expect(detectDialect('a;b;"c,d,e"\n')).toEqual({ delimiter: ';', sepLine: false });
    expect(detectDialect('\r\n\r\na\tb\tc\r\n')).toEqual({ delimiter: '\t', sepLine: false });
    expect(detectDialect('sep=;\r\na,b,c\r\n')).toEqual({ delimiter: ';', sepLine: true });
  });

  it('honours Excel\'s "sep=" line without counting it as a row', async () => {
    const file = `sep=;\r\namount;currency;name;iban;operator;email\r\n12,50;EUR;Jane;DE89370400440532013000;EU_SEPA;j@example.com\r\n`;
    const r = await importPayoutCsv(enc(file));
    expect(r.delimiter).toBe(';');
    expect(r.rows.map((row) => [row.rowNumber, row.payout.amountMinor])).toEqual([[2, 1250]]);
  });

  it('counts blank lines before the header as rows, as a spreadsheet shows them', async () => {
    const file = `\n\namount,currency,name,iban,operator,email\n${ROW}\n`;
    const r = await importPayoutCsv(enc(file));
    expect(r.rows.map((row) => row.rowNumber)).toEqual([4]);
  });

  it('a missing-column error hints at the separator when the header did not split', async () => {
    const file = `amount|currency|name|iban|operator|email\n${ROW.replaceAll(',', '|')}\n`;
    await expect(importPayoutCsv(enc(file))).rejects.toThrow(/read with "," as the separator/);
  });
});
