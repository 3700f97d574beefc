// Exports: formula guard, quoting, columns; the template; and that an export re-imports to the same rows.
import { describe, expect, it } from 'vitest';
import {
  exportBatchResultsCsv,
  type BatchResultExportRow,
  exportBatchResultsCsvAsync,
  exportHistoryCsv,
  exportHistoryCsvAsync,
  type HistoryExportRow,
} from '../../../main/csv/export';
import { neutraliseCell, restoreCell } from '../../../main/csv/formula';
import { importPayoutCsv } from '../../../main/csv/import';
import { payoutCsvTemplate } from '../../../main/csv/template';
import type { PayoutDraft } from '../../../main/domain/payout';

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);

const payout = (over: Partial<PayoutDraft> = {}): PayoutDraft => ({
  idPayout: 'P-1',
  amountMinor: 123456,
  currencyCode: 'EUR',
  accountName: 'Jane Example',
  accountNumber: 'DE89370400440532013000',
  paymentOperatorCode: 'EU_SEPA',
  paymentMethodCode: 'BANK_TRANSFER',
  emailAddress: 'jane@example.com',
  ...over,
});

describe('formula guard', () => {
  it('prefixes cells a spreadsheet would run, and the importer undoes exactly that', () => {
    for (const cell of ['=SUM(A1)', '+44 20 7946', '-5', '@cmd', '\tx', '\rx']) expect(neutraliseCell(cell)).toBe(`'${cell}`);
    for (const cell of ['Jane', '12.50', "'quoted", '', ' =x']) expect(neutraliseCell(cell)).toBe(cell);
    // A value that already looks guarded gets one more quote, so the round trip is exact.
    expect(neutraliseCell("'=x")).toBe("''=x");
    for (const cell of ['=1+1', "'=x", "''-y", "'plain", 'plain', '-', "'"]) expect(restoreCell(neutraliseCell(cell))).toBe(cell);
  });
});

describe('exportBatchResultsCsv', () => {
  it('writes every input column, then the outcome, with a BOM, CRLF and correct quoting', () => {
    const csv = exportBatchResultsCsv([
      {
        payout: payout({ accountName: 'Müller, "Jürgen"', reference: 'line1\nline2' }),
        extra: { 'Cost centre': '=HYPERLINK("http://evil")', Status: 'input status' },
        status: 'SUCCESS',
        feeMinor: 150,
        processedAt: '2024-06-01T10:00:00.000Z',
        intentId: 'intent-1',
      },
      { payout: payout({ idPayout: 'P-2', amountMinor: 5000, currencyCode: 'JPY', accountName: '@risk' }), status: 'FAILED', failureReason: '-account closed', intentId: 'intent-2', retryOf: 'P-0' },
    ]);
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const lines = csv.slice(1).split('\r\n');
    expect(lines[0]).toBe(
      'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress,callbackUrl,reference,' +
        'Cost centre,Status (input),status,fee,feeCurrencyCode,processedAt,failureReason,intentId,retryOf',
    );
    expect(lines[1]).toBe(
      'P-1,1234.56,EUR,"Müller, ""Jürgen""",DE89370400440532013000,EU_SEPA,BANK_TRANSFER,jane@example.com,,"line1\nline2",' +
        `"'=HYPERLINK(""http://evil"")",input status,SUCCESS,1.50,EUR,2024-06-01T10:00:00.000Z,,intent-1,`,
    );
    expect(lines[2]).toBe("P-2,5000,JPY,'@risk,DE89370400440532013000,EU_SEPA,BANK_TRANSFER,jane@example.com,,,,,FAILED,,,,'-account closed,intent-2,P-0");
    expect(lines[3]).toBe('');
  });

  it('the async variant produces the same text', async () => {
    const rows = Array.from({ length: 2_501 }, (_, i): BatchResultExportRow => ({
      payout: payout({ idPayout: `P-${i}`, accountName: i % 2 ? '=odd' : 'even' }),
      extra: i === 7 ? { Late: 'column seen late' } : {},
      status: 'SUCCESS',
    }));
    expect(await exportBatchResultsCsvAsync(rows)).toBe(exportBatchResultsCsv(rows));
  });

  it('re-imports to the same payouts; the outcome columns come back as extra columns', async () => {
    const rows = [
      { payout: payout({ reference: '  spaced  ', accountName: '=cmd|x' }), extra: { 'Cost centre': ' CC 1 ' }, status: 'SUCCESS', feeMinor: 0 },
      { payout: payout({ idPayout: 'P-2', amountMinor: 1, currencyCode: 'KWD', callbackUrl: 'https://erp.example.com/cb' }), extra: { 'Cost centre': '' }, status: 'PENDING' },
    ];
    const result = await importPayoutCsv(enc(exportBatchResultsCsv(rows)));
    expect(result.errors).toEqual([]);
    expect(result.rows.map((r) => r.payout)).toEqual([
      payout({ reference: 'spaced', accountName: '=cmd|x' }),
      payout({ idPayout: 'P-2', amountMinor: 1, currencyCode: 'KWD', callbackUrl: 'https://erp.example.com/cb' }),
    ]);
    expect(result.rows.map((r) => r.extra['Cost centre'])).toEqual([' CC 1 ', '']);
    expect(result.unknownColumns).toEqual(['Cost centre', 'status', 'fee', 'feeCurrencyCode', 'processedAt', 'failureReason', 'intentId', 'retryOf']);
    expect(result.rows[0]?.extra.fee).toBe('0.00');
  });
});

describe('exportHistoryCsv', () => {
  const history: HistoryExportRow[] = [
    { kind: 'payout', id: 'P-1', status: 'SUCCESS', amountMinor: 1050, currencyCode: 'EUR', feeMinor: 25, accountName: '+Plus', isTest: true, intentId: 'intent-1' },
    { kind: 'payin', id: 'I-1', status: 'PENDING', amountMinor: 7, currencyCode: 'KWD', createdAt: '2024-06-01T00:00:00Z' },
  ];

  it('writes the given rows with exact amounts and guarded cells', () => {
    const lines = exportHistoryCsv(history, { bom: false }).split('\r\n');
    expect(lines[0]).toBe(
      'kind,id,createdAt,processedAt,status,amount,currencyCode,fee,feeCurrencyCode,accountName,accountNumber,emailAddress,paymentOperatorCode,paymentMethodCode,reference,batchId,failureReason,isTest,intentId,retryOf',
    );
    expect(lines[1]).toBe("payout,P-1,,,SUCCESS,10.50,EUR,0.25,EUR,'+Plus,,,,,,,,true,intent-1,");
    expect(lines[2]).toBe('payin,I-1,2024-06-01T00:00:00Z,,PENDING,0.007,KWD,,,,,,,,,,,,,');
  });

  it('the async variant produces the same text', async () => {
    const many = Array.from({ length: 2_501 }, (_, i) => ({ ...history[i % 2]!, id: `X-${i}` }));
    expect(await exportHistoryCsvAsync(many)).toBe(exportHistoryCsv(many));
  });
});

describe('payoutCsvTemplate', () => {
  it('has the canonical header and an example row that imports cleanly', async () => {
    const template = payoutCsvTemplate();
    expect(template.split('\r\n')[0]).toBe(
      'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress,callbackUrl,reference',
    );
    const result = await importPayoutCsv(enc(template), {
      operators: [{ code: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['EUR'] }],
    });
    expect(result.counts).toEqual({ rows: 1, valid: 1, invalid: 0, warnings: 0 });
    expect(result.rows[0]?.payout).toMatchObject({ amountMinor: 12550, currencyCode: 'EUR', reference: 'Invoice 2024-001' });
    expect(result.rows[0]?.idGenerated).toBe(true);
  });
});
