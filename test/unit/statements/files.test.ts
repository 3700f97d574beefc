// The statement's files: a CSV a spreadsheet reads back to the same figures, a camt.053 whose opening balance plus
// its entries is its closing balance (a difference the desk cannot explain shows as an entry of its own), and a PDF
// that, turned into text and into an image read back by OCR, shows the figures (poppler's pdftotext and pdftoppm,
// tesseract).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { create } from 'xmlbuilder2';
import { buildStatementWithEntries } from '../../../main/statements/build';
import { CAMT053_NAMESPACE, statementCamt053 } from '../../../main/statements/camt053';
import { statementCsv } from '../../../main/statements/csv';
import { statementPdf } from '../../../main/statements/pdf';
import { ocrPage } from '../support/pdf-ocr';
import { CLOSING, decimalsOf, journalOf, LATER, NOV, november, OPENING } from './fixtures';

const month = () => buildStatementWithEntries(journalOf([OPENING, CLOSING], november), decimalsOf, NOV, null, LATER);
const work = mkdtempSync(join(tmpdir(), 'statement-files-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every element named `name` under `node`, as xmlbuilder2's object form gives them (one, or a list). */
const all = <T>(node: unknown, name: string): T[] => {
  const v = (node as Record<string, unknown>)[name];
  return v === undefined ? [] : Array.isArray(v) ? (v as T[]) : [v as T];
};
type Amt = { '@Ccy': string; '#': string };
const signed = (amt: Amt, ind: string) => Math.round(Number(amt['#']) * 100) * (ind === 'DBIT' ? -1 : 1);

describe('the statement as files', () => {
  it('CSV: the reconciliation, signed, then every movement with its payment id, then the notes', async () => {
    const { view, entries } = await month();
    const rows = parse(statementCsv(view, entries, decimalsOf), { columns: true }) as Record<string, string>[];
    const summary = (description: string) => rows.find((r) => r.section === 'summary' && r.description === description);
    expect(summary('Opening balance')).toMatchObject({ currencyCode: 'EUR', balance: '1050.50', at: '2026-10-31T12:00:00.000Z' });
    // Unsigned, on the side they belong: a "-150.00" cell would reach the spreadsheet as text.
    expect(summary('Payouts paid')).toMatchObject({ count: '2', debit: '150.00', credit: '' });
    expect(summary('Fees')).toMatchObject({ debit: '1.50' });
    expect(summary('Returned')).toMatchObject({ count: '1', credit: '20.00' });
    expect(summary('Processed between the opening read (2026-10-31 12:00 UTC) and the start of the period')).toMatchObject({ debit: '10.10' });
    expect(summary('Expected closing')?.balance).toBe('1103.85');
    expect(summary('Difference')).toMatchObject({ debit: '', credit: '' });
    const moves = rows.filter((r) => r.section === 'movement');
    expect(moves.map((r) => [r.paymentId, r.description, r.debit, r.credit])).toEqual([
      ['p0-in-flight-at-opening', 'Payout paid', '50.00', ''],
      ['p0-in-flight-at-opening', 'Fee', '0.50', ''],
      ['p-october-returned', 'Payout returned', '', '20.00'],
      ['p1', 'Payout paid', '100.00', ''],
      ['p1', 'Fee', '1.00', ''],
      ['p2-failed', 'Payout failed, nothing left the balance: 30.00', '', ''],
      ['i1', 'Payin received', '', '200.00'],
    ]);
    expect(rows.some((r) => Object.values(r).some((v) => v.startsWith("'")))).toBe(false);
    expect(rows.filter((r) => r.section === 'note').map((r) => r.description)).toEqual([expect.stringMatching(/^The closing balance is the first read after the end/), expect.stringMatching(/^1 payout was accepted/)]);
  });

  it('camt.053: opening plus the entries is the closing, each entry with its payment id and code; no entry for a failed payout', async () => {
    const { view, entries } = await month();
    const xml = await statementCamt053(view, entries, decimalsOf, { merchantCode: 'M-1', name: 'Acme payouts' }, 'PD-test');
    const doc = create(xml).end({ format: 'object' }) as { Document: { '@xmlns': string; BkToCstmrStmt: { GrpHdr: { MsgId: string }; Stmt: unknown } } };
    expect(doc.Document['@xmlns']).toBe(CAMT053_NAMESPACE);
    expect(doc.Document.BkToCstmrStmt.GrpHdr.MsgId).toBe('PD-test');
    const [stmt] = all<Record<string, unknown>>(doc.Document.BkToCstmrStmt, 'Stmt');
    expect(stmt).toMatchObject({ Id: 'PD-test-EUR', FrToDt: { FrDtTm: view.from, ToDtTm: view.to }, Acct: { Id: { Othr: { Id: 'M-1-EUR' } }, Ccy: 'EUR', Nm: 'Acme payouts' } });
    const balances = all<{ Tp: { CdOrPrtry: { Cd: string } }; Amt: Amt; CdtDbtInd: string }>(stmt, 'Bal');
    const balanceOf = (code: string) => balances.filter((b) => b.Tp.CdOrPrtry.Cd === code).map((b) => signed(b.Amt, b.CdtDbtInd))[0]!;
    // The balance at the period's edges: the reads (1050.50, 1103.85) moved by what happened between them and the edges.
    expect([balanceOf('OPBD'), balanceOf('CLBD')]).toEqual([105_050 - 1_010, 110_385 + 505]);
    const ntries = all<{ Amt: Amt; CdtDbtInd: string; Sts: { Cd: string }; BkTxCd: { Domn: { Cd: string; Fmly: { Cd: string; SubFmlyCd: string } } }; NtryDtls?: { TxDtls: { Refs: { EndToEndId: string } } } }>(stmt, 'Ntry');
    expect(ntries.map((n) => [n.NtryDtls?.TxDtls.Refs.EndToEndId, signed(n.Amt, n.CdtDbtInd), `${n.BkTxCd.Domn.Cd}/${n.BkTxCd.Domn.Fmly.Cd}/${n.BkTxCd.Domn.Fmly.SubFmlyCd}`])).toEqual([
      ['p0-in-flight-at-opening', -5_000, 'PMNT/ICDT/OTHR'],
      ['p0-in-flight-at-opening', -50, 'ACMT/MDOP/CHRG'],
      ['p-october-returned', 2_000, 'PMNT/ICDT/RRTN'],
      ['p1', -10_000, 'PMNT/ICDT/OTHR'],
      ['p1', -100, 'ACMT/MDOP/CHRG'],
      ['i1', 20_000, 'PMNT/RCDT/OTHR'],
    ]);
    expect(ntries.every((n) => n.Sts.Cd === 'BOOK')).toBe(true);
    expect(balanceOf('OPBD') + ntries.reduce((t, n) => t + signed(n.Amt, n.CdtDbtInd), 0)).toBe(balanceOf('CLBD'));
    expect(stmt).toMatchObject({ TxsSummry: { TtlCdtNtries: { NbOfNtries: '2', Sum: '220.00' }, TtlDbtNtries: { NbOfNtries: '4', Sum: '151.50' } } });

    // A top-up the desk knows nothing of: an entry of its own, so the file still adds up and the difference shows.
    const topUp = await buildStatementWithEntries(journalOf([OPENING, { ...CLOSING, availableMinor: CLOSING.availableMinor + 1_234 }], november), decimalsOf, NOV, null, LATER);
    const [withDiff] = all<Record<string, unknown>>((create(await statementCamt053(topUp.view, topUp.entries, decimalsOf, { merchantCode: 'M-1', name: 'Acme' }, 'PD-2')).end({ format: 'object' }) as { Document: { BkToCstmrStmt: unknown } }).Document.BkToCstmrStmt, 'Stmt');
    const last = all<{ Amt: Amt; CdtDbtInd: string; AddtlNtryInf: string }>(withDiff, 'Ntry').at(-1)!;
    expect([signed(last.Amt, last.CdtDbtInd), last.AddtlNtryInf]).toEqual([1_234, expect.stringContaining('not explained')]);
  });

  it('PDF: the summary on the first page and the movements after it, readable as text and drawn as an image', async () => {
    const { view, entries } = await month();
    const pdf = await statementPdf(view, entries, decimalsOf, 'Acme payouts');
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const file = join(work, 'statement.pdf');
    writeFileSync(file, pdf);
    const page = (n: number) => execFileSync('pdftotext', ['-layout', '-f', String(n), '-l', String(n), file, '-'], { encoding: 'utf8' });
    const first = page(1);
    expect(first).toContain('Statement: Acme payouts');
    expect(first).toMatch(/EUR - Reconciles/);
    expect(first).toMatch(/Payouts paid \(2\)\s+-150\.00/);
    expect(first).toMatch(/Fees\s+-1\.50/);
    expect(first).toMatch(/Expected closing\s+1103\.85/);
    expect(first).toMatch(/Difference\s+0\.00/);
    expect(first).toContain('1 payout was accepted and not yet processed at the closing read');
    expect(first).toContain('Failed payouts (1): 30.00 not paid; no fee, nothing left the balance');
    expect(first).toContain("A payment counts in the period of the gateway's processedAt");
    const second = page(2);
    expect(second).toMatch(/EUR: movements of the period \(7\)/);
    expect(second).toMatch(/2026-11-10 10:00:00\s+Payout paid\s+p1\s+-100\.00/);
    expect(second).toMatch(/Payin received\s+i1\s+200\.00/);
    // Drawn: the first page turned into an image and read back by OCR shows the key figures.
    const seen = ocrPage(file, 1, work);
    expect(seen).toMatch(/EUR\s*-\s*Reconciles/);
    expect(seen).toMatch(/Expected closing\s+1103\.85/);
    expect(seen).toMatch(/Payouts paid \(2\)\s+-150\.00/);
    // OCR takes seconds on a loaded machine.
  }, 60_000);
});
