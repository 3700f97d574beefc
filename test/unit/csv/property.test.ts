// Properties: whatever valid rows the exporter writes re-import unchanged, and no byte sequence crashes the
// importer (it returns a result or throws CsvFileError, nothing else).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportBatchResultsCsv } from '../../../main/csv/export';
import { importPayoutCsv } from '../../../main/csv/import';
import { CsvFileError } from '../../../main/csv/types';
import { parseCsvAmount } from '../../../main/csv/amount';
import { formatMinor } from '../../../main/domain/money';
import { isEmailAddress, isHttpUrl, type PayoutDraft } from '../../../main/domain/payout';

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);

// Characters that make CSV and spreadsheets interesting: delimiters, quotes, line breaks, formula triggers, accents.
const tricky = fc.constantFrom(
  'a', 'Z', '7', ' ', ',', ';', '"', "'", '=', '+', '-', '@', '\t', '\n', '\r', 'é', 'ü', 'ñ', '€', '中', '😀', '|', '\u00a0',
);
const text = (minLength: number) => fc.string({ unit: tricky, minLength, maxLength: 24 });
const trimmedText = text(1)
  .map((s) => s.trim())
  .filter((s) => s.length > 0);

const IBANS = ['DE89370400440532013000', 'GB82WEST12345698765432', 'FR1420041010050500013M02606', 'NL91ABNA0417164300'];
const accountNumber = fc.oneof(fc.constantFrom(...IBANS), fc.stringMatching(/^[0-9]{6,15}$/));
const currency = fc.constantFrom('EUR', 'USD', 'JPY', 'KWD', 'GBP');

const payoutArb: fc.Arbitrary<PayoutDraft> = fc
  .record({
    idPayout: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
    amountMinor: fc.integer({ min: 1, max: 1_000_000_000_000 }),
    currencyCode: currency,
    accountName: trimmedText,
    accountNumber,
    paymentOperatorCode: trimmedText,
    paymentMethodCode: trimmedText,
    emailAddress: fc.emailAddress().filter(isEmailAddress),
    callbackUrl: fc.option(fc.webUrl().filter(isHttpUrl), { nil: undefined }),
    reference: fc.option(trimmedText, { nil: undefined }),
  })
  .map((p) => {
    const draft: PayoutDraft = { ...p };
    if (draft.callbackUrl === undefined) delete draft.callbackUrl;
    if (draft.reference === undefined) delete draft.reference;
    return draft;
  });

const rowArb = fc.record({
  payout: payoutArb,
  extra: fc.record({ 'Cost centre': text(0), Project: text(0) }),
  status: fc.constantFrom('SUCCESS', 'FAILED', 'PENDING', '=BAD()'),
});

describe('CSV properties', () => {
  it('rows written by the exporter re-import unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(rowArb, { minLength: 1, maxLength: 15, selector: (r) => r.payout.idPayout }), async (rows) => {
        const result = await importPayoutCsv(enc(exportBatchResultsCsv(rows)));
        expect(result.errors).toEqual([]);
        expect(result.rows.map((r) => r.payout)).toEqual(rows.map((r) => r.payout));
        expect(result.rows.map((r) => ({ 'Cost centre': r.extra['Cost centre'], Project: r.extra.Project }))).toEqual(rows.map((r) => r.extra));
        expect(result.rows.map((r) => r.extra.status)).toEqual(rows.map((r) => r.status));
      }),
      { numRuns: 150 },
    );
  });

  it('garbage bytes never crash: a result or a CsvFileError', async () => {
    const csvish = fc.string({ unit: fc.constantFrom('a', '1', ',', ';', '\t', '"', '\n', '\r', ' ', '.', 'é', '\u0000'), maxLength: 300 }).map(enc);
    const header = enc('amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress\n');
    const withHeader = fc.uint8Array({ maxLength: 300 }).map((tail) => new Uint8Array([...header, ...tail]));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.uint8Array({ maxLength: 600 }), csvish, withHeader), async (bytes) => {
        try {
          const result = await importPayoutCsv(bytes);
          expect(result.counts.valid + result.counts.invalid).toBe(result.counts.rows);
        } catch (error) {
          expect(error).toBeInstanceOf(CsvFileError);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('any amount formatted with its currency decimals parses back to the same minor units', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: 4 }), (minor, decimals) => {
        const parsed = parseCsvAmount(formatMinor(minor, decimals), { currencyCode: 'XXX', decimals, decimalSeparator: '.' });
        expect(parsed).toEqual({ ok: true, amountMinor: minor });
        const comma = parseCsvAmount(formatMinor(minor, decimals).replace('.', ','), { currencyCode: 'XXX', decimals, decimalSeparator: ',' });
        expect(comma).toEqual({ ok: true, amountMinor: minor });
      }),
    );
  });
});
