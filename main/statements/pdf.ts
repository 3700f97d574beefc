// A statement as a PDF (pdfkit, its built-in Helvetica: no font files to ship): the first page the summary of each
// currency, from opening to closing balance with the notes; then the movements of the period, as many pages as
// they take (main/pdf-document.ts loads pdfkit when a PDF is made).
import type { StatementCurrency, StatementView } from '../../contract/api';
import { pdfBytes } from '../pdf-document';
import type { Movement } from './movements';
import { entryAmount, MOVEMENT_WORDS, negate, STATEMENT_BASIS } from './words';

const MARGIN = 50;
const A4 = { width: 595.28, height: 841.89 };
const RIGHT = A4.width - MARGIN;

type Doc = PDFKit.PDFDocument;

function row(doc: Doc, label: string, value: string, options: { bold?: boolean } = {}): void {
  const y = doc.y;
  doc.font(options.bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
  doc.text(label, MARGIN, y, { width: 360 });
  const after = doc.y;
  doc.text(value, MARGIN + 360, y, { width: RIGHT - MARGIN - 360, align: 'right' });
  // A little air between rows: a wrapped label must not read as the next row's.
  doc.y = Math.max(after, doc.y) + 3;
}

function summary(doc: Doc, c: StatementCurrency): void {
  const code = c.currencyCode;
  const verdict = c.reconciled ? 'Reconciles' : c.difference ? `Difference of ${c.difference.amount} ${code}` : 'Cannot be reconciled: see the notes';
  doc.moveDown(0.8).font('Helvetica-Bold').fontSize(13).text(`${code} - ${verdict}`, MARGIN);
  doc.moveDown(0.3);
  const balance = (label: string, b: StatementCurrency['opening']) =>
    row(doc, b ? `${label} (${b.source === 'gateway' ? 'read from the gateway now' : `read ${b.observedAt}`}; available ${b.available.amount}, reserved ${b.reserved.amount})` : `${label}: no balance read`, b?.total.amount ?? '-', { bold: true });
  balance('Opening balance', c.opening);
  row(doc, `Payouts paid (${c.paid.count})`, negate(c.paid.amount.amount));
  row(doc, 'Fees', negate(c.fees.amount));
  row(doc, `Returned (${c.returned.count})`, c.returned.amount.amount);
  row(doc, `Payins (${c.payins.count})`, c.payins.amount.amount);
  for (const l of c.lines.filter((x) => x.amount !== null && x.kind !== 'unexplained')) row(doc, l.text, l.amount!.amount);
  row(doc, 'Expected closing', c.expectedClosing?.amount ?? '-', { bold: true });
  balance('Closing balance', c.closing);
  row(doc, 'Difference', c.difference?.amount ?? '-', { bold: true });
  row(doc, `Failed payouts (${c.failed.count}): ${c.failed.amount.amount} not paid; no fee, nothing left the balance`, '');
  const notes = c.lines.filter((l) => l.amount === null || l.kind === 'unexplained');
  if (notes.length > 0) {
    doc.moveDown(0.3).font('Helvetica-Oblique').fontSize(9);
    for (const l of notes) doc.text(`- ${l.text}${l.kind === 'unexplained' ? ` (${l.amount!.amount} ${code})` : ''}`, MARGIN, doc.y, { width: RIGHT - MARGIN });
  }
}

function movements(doc: Doc, c: StatementCurrency, entries: readonly Movement[], decimals: number): void {
  doc.addPage();
  doc.font('Helvetica-Bold').fontSize(12).text(`${c.currencyCode}: movements of the period (${entries.length})`, MARGIN);
  doc.moveDown(0.5);
  for (const e of entries) {
    if (doc.y > A4.height - MARGIN - 20) doc.addPage();
    const y = doc.y;
    doc.font('Helvetica').fontSize(9);
    doc.text(new Date(e.at).toISOString().replace('T', ' ').slice(0, 19), MARGIN, y, { width: 110 });
    doc.text(MOVEMENT_WORDS[e.kind], MARGIN + 115, y, { width: 150 });
    doc.text(e.paymentId, MARGIN + 270, y, { width: 160, lineBreak: false, ellipsis: true });
    doc.text(entryAmount(e, decimals), MARGIN + 430, y, { width: RIGHT - MARGIN - 430, align: 'right' });
    doc.y = y + 13;
  }
}

export function statementPdf(view: StatementView, entries: ReadonlyMap<string, readonly Movement[]>, decimalsOf: (code: string) => number, title: string): Promise<Buffer> {
  return pdfBytes({ size: 'A4', margin: MARGIN, info: { Title: `Statement ${title} ${view.from} to ${view.to}`, Creator: 'Payout Desk' } }, (doc) => {
    doc.font('Helvetica-Bold').fontSize(16).text(`Statement: ${title}`, MARGIN, MARGIN);
    doc.font('Helvetica').fontSize(10).text(`Period ${view.from} to ${view.to}, made ${view.generatedAt}`);
    doc.font('Helvetica-Oblique').fontSize(9).text(`${STATEMENT_BASIS[0]!.toUpperCase()}${STATEMENT_BASIS.slice(1)}. Balances are the gateway's total: available plus reserved.`);
    if (view.currencies.length === 0) doc.moveDown().font('Helvetica').fontSize(11).text('No balance read and no payment processed in this period.');
    for (const c of view.currencies) summary(doc, c);
    for (const c of view.currencies) movements(doc, c, entries.get(c.currencyCode) ?? [], decimalsOf(c.currencyCode));
  });
}
