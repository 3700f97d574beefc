// An accounting export's file in three layouts:
//  - generic CSV: one line per side of each movement, with its stable line id (lineId, movementId);
//  - Xero manual journals (help.xero.com "Import manual journals"): Narration, Date (dd/mm/yyyy), Description,
//    AccountCode, TaxRate, Amount (positive a debit, negative a credit); the rows that share a narration and a date
//    are one journal, and a file holds at most 300 rows;
//  - QuickBooks Online journal entries (Import data → Journal entries): Journal No, Journal Date (MM/DD/YYYY),
//    Account Name, Debits, Credits, Description; the rows that share a journal number are one entry.
// Xero and QuickBooks get one balanced journal per day: a month of payouts is thousands of movements, and a ledger
// wants the day's totals per account; the generic file keeps every movement for whoever needs the detail.
import type { AccountingAccounts, AccountingFormat } from '../../contract/api';
import { stringifyTable } from '../csv/export';
import { exactSum } from '../desk/convert';
import { formatMinor } from '../domain/money';
import type { Movement, MovementKind } from '../statements/movements';
import { localDayText } from '../statements/words';
import { journalLines, postsToLedger } from './journal-lines';

export const XERO_MAX_ROWS = 300;

export const GENERIC_COLUMNS = ['lineId', 'date', 'processedAt', 'account', 'debit', 'credit', 'currencyCode', 'description', 'paymentId', 'movementId', 'exportId'] as const;
export const XERO_COLUMNS = ['*Narration', '*Date', 'Description', '*AccountCode', '*TaxRate', '*Amount'] as const;
export const QUICKBOOKS_COLUMNS = ['Journal No', 'Journal Date', 'Account Name', 'Debits', 'Credits', 'Description'] as const;

const SUMMARY_WORDS: Record<Exclude<MovementKind, 'failed'>, string> = { paid: 'Payouts paid', fee: 'Payout and payin fees', returned: 'Payouts returned', payin: 'Payins received' };

/** One day's journal: per movement kind, the debit and the credit account with the day's total. Balanced by construction. */
export interface DayLine {
  day: string;
  account: string;
  /** Positive for a debit, negative for a credit, in minor units. */
  signedMinor: number;
  description: string;
}

function dayJournals(movements: readonly Movement[], accounts: AccountingAccounts, currencyCode: string): DayLine[] {
  const totals = new Map<string, { day: string; kind: Exclude<MovementKind, 'failed'>; minor: number; count: number }>();
  for (const m of movements.filter(postsToLedger)) {
    const kind = m.kind as Exclude<MovementKind, 'failed'>;
    const day = localDayText(m.at);
    const key = `${day}|${kind}`;
    const t = totals.get(key) ?? { day, kind, minor: 0, count: 0 };
    t.minor = exactSum(t.minor, m.amountMinor, currencyCode, 'accounting export');
    t.count += 1;
    totals.set(key, t);
  }
  const order: Exclude<MovementKind, 'failed'>[] = ['paid', 'fee', 'returned', 'payin'];
  const lines: DayLine[] = [];
  const sorted = [...totals.values()].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : order.indexOf(a.kind) - order.indexOf(b.kind)));
  for (const t of sorted) {
    const what = `${SUMMARY_WORDS[t.kind]} (${t.count})`;
    const [dr, cr] = t.kind === 'paid' ? [accounts.payouts, accounts.clearing] : t.kind === 'fee' ? [accounts.fees, accounts.clearing] : t.kind === 'returned' ? [accounts.clearing, accounts.returns] : [accounts.clearing, accounts.payins];
    lines.push({ day: t.day, account: dr, signedMinor: t.minor, description: what });
    lines.push({ day: t.day, account: cr, signedMinor: -t.minor, description: what });
  }
  return lines;
}

const [dmy, mdy] = [(day: string) => `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}`, (day: string) => `${day.slice(5, 7)}/${day.slice(8, 10)}/${day.slice(0, 4)}`];

export interface AccountingFileInput {
  format: AccountingFormat;
  movements: readonly Movement[];
  accounts: AccountingAccounts;
  decimalsOf: (code: string) => number;
  exportId: string;
}

/** The number of rows the file will have (without its header): Xero refuses a file of more than 300. */
export function accountingRowCount(input: Omit<AccountingFileInput, 'exportId'>): number {
  if (input.format === 'generic') return input.movements.filter(postsToLedger).length * 2;
  const codes = new Set(input.movements.map((m) => m.currencyCode));
  return [...codes].reduce((n, code) => n + dayJournals(input.movements.filter((m) => m.currencyCode === code), input.accounts, code).length, 0);
}

export function accountingFile(input: AccountingFileInput): string {
  const { format, movements, accounts, decimalsOf, exportId } = input;
  if (format === 'generic') {
    const rows = journalLines(movements, accounts, decimalsOf).map((l) => [l.lineId, l.day, new Date(l.at).toISOString(), l.account, l.debit, l.credit, l.currencyCode, l.description, l.paymentId, l.movementId, exportId]);
    return stringifyTable([[...GENERIC_COLUMNS], ...rows]);
  }
  const codes = [...new Set(movements.map((m) => m.currencyCode))];
  if (codes.length > 1) throw new Error(`a ${format} journal holds one currency, and these movements have ${codes.join(', ')}`);
  const code = codes[0] ?? '';
  const lines = code ? dayJournals(movements, accounts, code) : [];
  const amount = (minor: number) => formatMinor(minor, decimalsOf(code));
  if (format === 'xero') {
    const rows = lines.map((l) => [`Payout Desk ${code} ${l.day} (${exportId})`, dmy(l.day), l.description, l.account, accounts.taxRate, amount(l.signedMinor)]);
    return stringifyTable([[...XERO_COLUMNS], ...rows], new Set([5]));
  }
  // QuickBooks: at most 21 characters for a journal number; the export id's tail keeps two exports of a day apart.
  const rows = lines.map((l) => [`PD${l.day.replaceAll('-', '')}${code}-${exportId.slice(-6)}`, mdy(l.day), l.account, l.signedMinor > 0 ? amount(l.signedMinor) : '', l.signedMinor < 0 ? amount(-l.signedMinor) : '', `${l.description}, ${code}`]);
  return stringifyTable([[...QUICKBOOKS_COLUMNS], ...rows]);
}
