// A statement as CSV for a spreadsheet: per currency the reconciliation from opening to closing, then every movement
// of the period, then the notes. Money that left is a debit, money that came in a credit, both unsigned: a cell
// starting with "-" would go through the formula guard and reach the spreadsheet as text, not as a number.
import type { StatementCurrency, StatementView } from '../../contract/api';
import { stringifyTable } from '../csv/export';
import { formatMinor } from '../domain/money';
import type { Movement } from './movements';
import { MOVEMENT_WORDS, STATEMENT_BASIS } from './words';

export const STATEMENT_CSV_COLUMNS = ['currencyCode', 'section', 'description', 'count', 'debit', 'credit', 'balance', 'at', 'paymentId'] as const;

/** A signed decimal amount as [debit, credit]: the one it belongs in, unsigned; zero is neither. */
function sides(amount: string): [string, string] {
  if (/^-?0(\.0+)?$/.test(amount)) return ['', ''];
  return amount.startsWith('-') ? [amount.slice(1), ''] : ['', amount];
}

function currencyRows(c: StatementCurrency, entries: readonly Movement[], decimals: number): string[][] {
  const code = c.currencyCode;
  type Cells = { count?: number; debit?: string; credit?: string; balance?: string | undefined; at?: string | undefined; paymentId?: string };
  const row = (section: string, description: string, x: Cells = {}) => [code, section, description, x.count === undefined ? '' : String(x.count), x.debit ?? '', x.credit ?? '', x.balance ?? '', x.at ?? '', x.paymentId ?? ''];
  const signedRow = (section: string, description: string, amount: string, x: Cells = {}) => {
    const [debit, credit] = sides(amount);
    return row(section, description, { ...x, debit, credit });
  };
  return [
    row('summary', 'Opening balance', { balance: c.opening?.total.amount, at: c.opening?.observedAt }),
    row('summary', 'Payouts paid', { count: c.paid.count, debit: c.paid.amount.amount }),
    row('summary', 'Fees', { debit: c.fees.amount }),
    row('summary', 'Returned', { count: c.returned.count, credit: c.returned.amount.amount }),
    row('summary', 'Payins', { count: c.payins.count, credit: c.payins.amount.amount }),
    ...c.lines.filter((l) => l.amount !== null && l.kind !== 'unexplained').map((l) => signedRow('summary', l.text, l.amount!.amount)),
    row('summary', 'Expected closing', { balance: c.expectedClosing?.amount }),
    row('summary', 'Closing balance', { balance: c.closing?.total.amount, at: c.closing?.observedAt }),
    signedRow('summary', 'Difference', c.difference?.amount ?? '0'),
    row('summary', `Failed payouts: ${c.failed.amount.amount} not paid (no fee, nothing left the balance)`, { count: c.failed.count }),
    ...entries.map((e) => {
      const at = new Date(e.at).toISOString();
      if (e.kind === 'failed') return row('movement', `${MOVEMENT_WORDS.failed}: ${formatMinor(e.amountMinor, decimals)}`, { at, paymentId: e.paymentId });
      return signedRow('movement', MOVEMENT_WORDS[e.kind], formatMinor(e.deltaMinor, decimals), { at, paymentId: e.paymentId });
    }),
    ...c.lines.filter((l) => l.amount === null || l.kind === 'unexplained').map((l) => (l.amount ? signedRow('note', l.text, l.amount.amount) : row('note', l.text))),
  ];
}

export function statementCsv(view: StatementView, entries: ReadonlyMap<string, readonly Movement[]>, decimalsOf: (code: string) => number): string {
  const rows: string[][] = [[...STATEMENT_CSV_COLUMNS]];
  rows.push(['', 'period', `${view.from} to ${view.to}; ${STATEMENT_BASIS}`, '', '', '', '', view.generatedAt, '']);
  for (const c of view.currencies) rows.push(...currencyRows(c, entries.get(c.currencyCode) ?? [], decimalsOf(c.currencyCode)));
  return stringifyTable(rows);
}
