// Remittance advice as a PDF (pdfkit, built-in Helvetica), one page per advice: one payout's, or in a batch one
// payee's with each of their payouts and the total (main/pdf-document.ts loads pdfkit when a PDF is made).
import { pdfBytes } from '../pdf-document';
import type { RemittanceAdvice } from './advice';

const MARGIN = 60;
const WIDTH = 595.28 - 2 * MARGIN;

const when = (iso: string) => `${iso.replace('T', ' ').replace(/(\.\d+)?Z$/, '')} UTC`;

function field(doc: PDFKit.PDFDocument, label: string, value: string): void {
  const y = doc.y;
  doc.font('Helvetica').fontSize(11).fillColor('#555555').text(label, MARGIN, y, { width: 140 });
  doc.font('Helvetica-Bold').fillColor('#000000').text(value, MARGIN + 150, y, { width: WIDTH - 150 });
  doc.moveDown(0.4);
}

function page(doc: PDFKit.PDFDocument, a: RemittanceAdvice): void {
  doc.font('Helvetica-Bold').fontSize(18).text('Remittance advice', MARGIN, MARGIN);
  doc.moveDown(0.3).font('Helvetica').fontSize(10).text(`From ${a.payer} to ${a.payee}`);
  doc.moveDown(1.2);
  field(doc, 'Paid to', `${a.payee} <${a.payeeEmail}>`);
  field(doc, 'Into account', `ending ${a.account}`);
  field(doc, 'Payer', a.payer);
  if (a.batchFileName) field(doc, 'Payment run', a.batchFileName);
  doc.moveDown(0.8);
  // The payment id and the reference wrap rather than being cut: the payee quotes them.
  const columns = [
    { title: 'Paid on', x: 0, width: 108 },
    { title: 'Payment id', x: 112, width: 190 },
    { title: 'Reference', x: 306, width: 92 },
    { title: 'Amount', x: 402, width: WIDTH - 402, align: 'right' as const },
  ];
  const line = (cells: string[], bold = false): void => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9);
    const height = Math.max(...cells.map((cell, i) => doc.heightOfString(cell, { width: columns[i]!.width })));
    if (doc.y + height > 790) {
      // A payee with more payouts than a page holds: the table goes on, under its headings again.
      doc.addPage();
      doc.y = MARGIN;
      line(columns.map((c) => `${c.title}${c.x === 0 ? ` (${a.payee}, continued)` : ''}`), true);
      doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9);
    }
    const y = doc.y;
    cells.forEach((cell, i) => doc.text(cell, MARGIN + columns[i]!.x, y, { width: columns[i]!.width, align: columns[i]!.align ?? 'left' }));
    doc.y = y + height + 5;
  };
  line(columns.map((c) => c.title), true);
  for (const p of a.payments) line([when(p.paidAt), p.payoutId, p.reference ?? '-', `${p.amount} ${p.currencyCode}`]);
  for (const t of a.totals) line(['', '', a.totals.length > 1 ? `Total ${t.currencyCode}` : 'Total', `${t.amount} ${t.currencyCode}`], true);
  doc.moveDown(1.5).font('Helvetica-Oblique').fontSize(9).fillColor('#555555')
    .text('The gateway reported these payments as paid. Please quote the payment id and the reference when you ask about one.', MARGIN, doc.y, { width: WIDTH });
  doc.fillColor('#000000');
}

export function remittancePdf(advices: readonly RemittanceAdvice[], title: string): Promise<Buffer> {
  return pdfBytes({ size: 'A4', margin: MARGIN, autoFirstPage: false, info: { Title: title, Creator: 'Payout Desk' } }, (doc) => {
    for (const a of advices) {
      doc.addPage();
      page(doc, a);
    }
  });
}
