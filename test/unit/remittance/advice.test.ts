// Remittance advice: only a payout the gateway reports SUCCESS is advised (never one in flight, failed or RETURNED);
// a batch's advice is one page per payee with each of their payouts and the total; the PDF says it, read back as text
// and, drawn to an image, by OCR.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PaymentRecord } from '../../../main/journal/types';
import { batchAdvice, notAdvisable, payoutAdvice } from '../../../main/remittance/advice';
import { remittancePdf } from '../../../main/remittance/pdf';
import { ocrPage } from '../support/pdf-ocr';

const decimalsOf = (code: string) => (code === 'KWD' ? 3 : 2);
const work = mkdtempSync(join(tmpdir(), 'remittance-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function paid(id: string, extra: Partial<PaymentRecord> = {}): PaymentRecord {
  return {
    kind: 'payout', id, intentId: id, retryOf: null, batchId: 'b-1', rowNumber: 2, amountMinor: 12_345, currencyCode: 'EUR',
    accountName: 'Jane Doe', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER',
    emailAddress: 'jane@example.com', callbackUrl: null, reference: 'INV-2026-118', state: 'ACCEPTED', gatewayStatus: 'SUCCESS', status: 'SUCCESS',
    isFinal: true, feeMinor: 50, feeCurrencyCode: 'EUR', failureReason: null, processedAt: '2026-11-20T09:15:00.000Z', isTest: true, lastError: null,
    unknownSince: null, notFoundSince: null, attempts: 1, createdAt: 0, updatedAt: 0, acceptedAt: 0, finalAt: 0, nextPollAt: null, details: null, ...extra,
  };
}

describe('remittance advice', () => {
  it('is given for a paid payout only: never for one in flight, failed, returned, or a payin', () => {
    expect(notAdvisable(paid('ok'))).toBeNull();
    expect(notAdvisable(paid('r', { gatewayStatus: 'RETURNED', status: 'RETURNED' }))).toBe('Payout r came back (RETURNED): it did not pay Jane Doe, so there is no advice to give');
    expect(notAdvisable(paid('f', { gatewayStatus: 'FAILED', status: 'FAILED' }))).toMatch(/^Payout f is FAILED, not paid/);
    expect(notAdvisable(paid('p', { gatewayStatus: 'PROCESSING', status: 'PROCESSING', isFinal: false, processedAt: null }))).toMatch(/^Payout p is PROCESSING, not paid/);
    expect(notAdvisable(paid('q', { gatewayStatus: null, status: 'QUEUED', state: 'QUEUED', isFinal: false, processedAt: null }))).toMatch(/is QUEUED, not paid/);
    expect(notAdvisable(paid('in', { kind: 'payin' }))).toBe('in is a payin: remittance advice is for payouts');
    expect(() => payoutAdvice(paid('r', { gatewayStatus: 'RETURNED', status: 'RETURNED' }), 'Acme', decimalsOf, null)).toThrow(expect.objectContaining({ code: 'NOT_PAID' }));
  });

  it('says who paid whom, how much, when, into which account and for what', () => {
    expect(payoutAdvice(paid('p-1'), 'Acme Ltd', decimalsOf, 'november-run.csv')).toEqual({
      payer: 'Acme Ltd', payee: 'Jane Doe', payeeEmail: 'jane@example.com', account: '…3000', batchFileName: 'november-run.csv',
      payments: [{ payoutId: 'p-1', amount: '123.45', currencyCode: 'EUR', paidAt: '2026-11-20T09:15:00.000Z', reference: 'INV-2026-118', rowNumber: 2 }],
      totals: [{ amount: '123.45', currencyCode: 'EUR' }],
    });
  });

  it('groups a batch by payee (name and e-mail as the payee book matches them, and account), leaving out what did not pay', () => {
    const rows = [
      paid('a1'),
      paid('b1', { accountName: 'Bob Roe', emailAddress: 'bob@example.com', accountNumber: 'DE02120300000000202051', reference: 'INV-9', amountMinor: 1_000 }),
      paid('a2', { accountName: 'JANE DOE', emailAddress: 'Jane@Example.com', reference: 'INV-2026-119', amountMinor: 655 }),
      paid('a3-kwd', { currencyCode: 'KWD', amountMinor: 1_234 }),
      paid('a4-returned', { gatewayStatus: 'RETURNED', status: 'RETURNED' }),
      paid('b2-failed', { accountName: 'Bob Roe', emailAddress: 'bob@example.com', accountNumber: 'DE02120300000000202051', gatewayStatus: 'FAILED', status: 'FAILED' }),
    ];
    const { advices, notPaid } = batchAdvice(rows, 'Acme Ltd', decimalsOf, 'run.csv');
    expect(notPaid).toBe(2);
    expect(advices.map((a) => [a.payee, a.payments.map((p) => p.payoutId), a.totals])).toEqual([
      ['Jane Doe', ['a1', 'a2', 'a3-kwd'], [{ amount: '130.00', currencyCode: 'EUR' }, { amount: '1.234', currencyCode: 'KWD' }]],
      ['Bob Roe', ['b1'], [{ amount: '10.00', currencyCode: 'EUR' }]],
    ]);
  });

  it('as a PDF: a page per payee, read back as text with its figures', async () => {
    const { advices } = batchAdvice([paid('a1'), paid('b1', { accountName: 'Bob Roe', emailAddress: 'bob@example.com', accountNumber: 'DE02120300000000202051', amountMinor: 1_000 })], 'Acme Ltd', decimalsOf, 'run.csv');
    const file = join(work, 'advice.pdf');
    writeFileSync(file, await remittancePdf(advices, 'Remittance advice run.csv'));
    const text = (page: number) => execFileSync('pdftotext', ['-layout', '-f', String(page), '-l', String(page), file, '-'], { encoding: 'utf8' });
    const first = text(1);
    expect(first).toContain('Remittance advice');
    expect(first).toMatch(/Paid to\s+Jane Doe <jane@example\.com>/);
    expect(first).toMatch(/Into account\s+ending …3000|Into account\s+ending \.\.\.3000/);
    expect(first).toMatch(/Payment run\s+run\.csv/);
    expect(first).toMatch(/2026-11-20 09:15:00 UTC\s+a1\s+INV-2026-118\s+123\.45 EUR/);
    expect(first).toMatch(/Total\s+123\.45 EUR/);
    expect(first).not.toContain('Bob Roe');
    expect(text(2)).toMatch(/Paid to\s+Bob Roe <bob@example\.com>/);
    // As a person sees the page: drawn to an image and read back by OCR, the payee, the invoice and the amount.
    const seen = ocrPage(file, 1, work);
    expect(seen).toContain('Jane Doe');
    expect(seen).toContain('INV-2026-118');
    expect(seen).toMatch(/Total\s+123\.45 EUR/);
    // OCR takes seconds on a loaded machine.
  }, 60_000);

  it('goes on to another page, under its headings again, for a payee with more payouts than a page holds', async () => {
    const rows = Array.from({ length: 70 }, (_, i) => paid(`many-${String(i + 1).padStart(2, '0')}`, { amountMinor: 100 }));
    const { advices } = batchAdvice(rows, 'Acme Ltd', decimalsOf, 'run.csv');
    expect(advices).toHaveLength(1);
    const file = join(work, 'long.pdf');
    writeFileSync(file, await remittancePdf(advices, 'long'));
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/^Pages:\s+2$/m);
    const second = execFileSync('pdftotext', ['-layout', '-f', '2', '-l', '2', file, '-'], { encoding: 'utf8' });
    expect(second).toMatch(/Payment id\s+Reference\s+Amount/);
    expect(second).toContain('continued');
    expect(second).toMatch(/many-70\s+INV-2026-118\s+1\.00 EUR/);
    expect(second).toMatch(/Total\s+70\.00 EUR/);
  });
});
