// The reconciliation of one currency as the table reads it, top to bottom: opening total, what the period took
// and brought, the lines that explain the edges of the balance reads, the expected closing total, the closing
// total read, and the difference. Every figure is main's decimal string; the renderer only splits off a sign.
import type { StatementCurrency, StatementLine } from '../../contract/api';
import { formatDateTime } from './format';

export type RowOperator = '' | '−' | '+' | '=';

export interface StatementRow {
  /** data-testid suffix: row-<key>. */
  key: string;
  op: RowOperator;
  label: string;
  count?: number;
  /** A second line under the label (when the balance was read, why a figure is what it is). */
  hint?: string;
  /** The amount without its sign (the operator carries it), or signed for the difference; null shows "—". */
  amount: string | null;
  /** The expected closing and the difference stand out. */
  emphasis?: 'total' | 'difference';
}

/**
 * A line's amount as operator and magnitude: "-12.30" → − 12.30, "4.00" → + 4.00. The sign is read off the
 * string; no amount is ever turned into a number.
 */
export function splitSign(amount: string): { op: '−' | '+'; magnitude: string } {
  const text = amount.trim();
  return text.startsWith('-') ? { op: '−', magnitude: text.slice(1) } : { op: '+', magnitude: text.replace(/^\+/, '') };
}

/** The "unexplained" line is the difference itself, not part of the expected closing: it is shown with the difference. */
export const isSumLine = (l: StatementLine): boolean => l.amount !== null && l.kind !== 'unexplained';
/** Lines without an amount: remarks listed under the table. */
export const isRemark = (l: StatementLine): boolean => l.amount === null;

export function statementRows(c: StatementCurrency): StatementRow[] {
  const rows: StatementRow[] = [
    {
      key: 'opening',
      op: '',
      label: 'Opening total',
      hint: c.opening ? `read ${formatDateTime(c.opening.observedAt)}` : 'no balance read to start from',
      amount: c.opening?.total.amount ?? null,
    },
    { key: 'paid', op: '−', label: 'Payouts paid', count: c.paid.count, amount: c.paid.amount.amount },
    { key: 'fees', op: '−', label: 'Fees', amount: c.fees.amount },
    { key: 'returned', op: '+', label: 'Returned', count: c.returned.count, hint: 'came back; the fee stays charged', amount: c.returned.amount.amount },
    { key: 'payins', op: '+', label: 'Payins', count: c.payins.count, amount: c.payins.amount.amount },
  ];
  c.lines.filter(isSumLine).forEach((l, i) => {
    const { op, magnitude } = splitSign(l.amount?.amount ?? '0');
    rows.push({ key: `line-${i}`, op, label: l.text, amount: magnitude });
  });
  rows.push(
    { key: 'expected', op: '=', label: 'Expected closing total', amount: c.expectedClosing?.amount ?? null, emphasis: 'total' },
    {
      key: 'closing',
      op: '',
      label: 'Closing total',
      hint: !c.closing ? 'no balance read at the end' : c.closing.source === 'gateway' ? 'read from the gateway now' : `read ${formatDateTime(c.closing.observedAt)}`,
      amount: c.closing?.total.amount ?? null,
    },
    {
      key: 'difference',
      op: '',
      label: 'Difference',
      hint: c.lines.find((l) => l.kind === 'unexplained')?.text ?? (c.difference === null ? 'no balance to compare with' : 'closing total − expected closing total'),
      amount: c.difference?.amount ?? null,
      emphasis: 'difference',
    },
  );
  return rows;
}
