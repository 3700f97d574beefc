// CLI: `statement` — the period statement of the Statements screen (statements:get): per currency, the opening and
// closing balance, what was paid, charged, returned and received in between, and whether that reconciles. Dates
// are the machine's local days (TZ=UTC for UTC months), as the screen's: a month is from its first local midnight
// to the next month's.
import { stat } from 'node:fs/promises';
import { type Command, InvalidArgumentError } from 'commander';
import type { AccountingAccounts, AccountingFormat, StatementCurrency, StatementFormat, StatementView } from '../../contract/api';
import type { CliDeps } from './deps';
import { CliUsageError } from './deps';
import { DeskError } from '../desk/services';
import { currencyCode, plural, table, writeOut } from './shared';
import { localDayText, negate } from '../statements/words';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;

function localDate(label: string) {
  return (value: string): Date => {
    const m = DATE.exec(value.trim());
    const d = m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : null;
    // new Date rolls 2026-02-30 over into March: a date that does not come back as typed does not exist.
    if (!m || !d || d.getMonth() !== Number(m[2]) - 1 || d.getDate() !== Number(m[3])) throw new InvalidArgumentError(`${label} must be a date such as 2026-11-30`);
    return d;
  };
}

function monthOption(value: string): { from: Date; to: Date } {
  const m = MONTH.exec(value.trim());
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) throw new InvalidArgumentError('--month must be a month such as 2026-11');
  return { from: new Date(Number(m[1]), Number(m[2]) - 1, 1), to: new Date(Number(m[1]), Number(m[2]), 1) };
}

interface StatementOptions {
  month?: { from: Date; to: Date };
  from?: Date;
  to?: Date;
  currency?: string;
  format?: StatementFormat;
  out?: string;
  force?: boolean;
  issue?: boolean;
}

const FORMATS: readonly StatementFormat[] = ['csv', 'pdf', 'camt053'];

function formatOption(value: string): StatementFormat {
  const format = FORMATS.find((f) => f === value.trim().toLowerCase());
  if (!format) throw new InvalidArgumentError(`--format must be one of ${FORMATS.join(', ')}`);
  return format;
}

/** The period asked for: a month, or --from and --to (both days included); by default this month so far. */
export function periodOf(o: Pick<StatementOptions, 'month' | 'from' | 'to'>, now = new Date()): { from: Date; to: Date } {
  if (o.month && (o.from || o.to)) throw new CliUsageError('Give either --month or --from and --to, not both');
  if (o.month) return o.month;
  if (o.from || o.to) {
    if (!o.from || !o.to) throw new CliUsageError('Give both --from and --to (the last day is included), or --month');
    const to = new Date(o.to.getFullYear(), o.to.getMonth(), o.to.getDate() + 1);
    if (o.from >= to) throw new CliUsageError('--from must be on or before --to');
    return { from: o.from, to };
  }
  return { from: new Date(now.getFullYear(), now.getMonth(), 1), to: new Date(now.getFullYear(), now.getMonth() + 1, 1) };
}


function currencyLines(c: StatementCurrency): string[] {
  const head = `${c.currencyCode}  ${c.reconciled ? 'reconciles' : c.difference ? `does not reconcile: ${c.difference.amount} unexplained` : 'cannot be reconciled (see the notes)'}`;
  const balance = (label: string, b: StatementCurrency['opening']) =>
    b ? [`${label} (${b.source === 'gateway' ? 'read from the gateway now' : `read ${b.observedAt}`})`, b.total.amount, `available ${b.available.amount}, reserved ${b.reserved.amount}`] : [label, '-', ''];
  const rows = [
    balance('Opening balance', c.opening),
    [`- Payouts paid (${c.paid.count})`, negate(c.paid.amount.amount), ''],
    ['- Fees', negate(c.fees.amount), ''],
    [`+ Returned (${c.returned.count})`, c.returned.amount.amount, ''],
    [`+ Payins (${c.payins.count})`, c.payins.amount.amount, ''],
    ...c.lines.filter((l) => l.amount !== null && l.kind !== 'unexplained').map((l) => [`  ${l.text}`, l.amount!.amount, '']),
    ['= Expected closing', c.expectedClosing?.amount ?? '-', ''],
    balance('Closing balance', c.closing),
    ['Difference', c.difference?.amount ?? '-', ''],
  ];
  const notes = c.lines.filter((l) => l.amount === null || l.kind === 'unexplained').map((l) => `  - ${l.text}`);
  return [
    head,
    ...table(rows).map((r) => `  ${r}`),
    `  Failed: ${plural(c.failed.count, 'payout')}, ${c.failed.amount.amount} (no fee, nothing left the balance)`,
    ...(notes.length ? ['  Notes:', ...notes] : []),
  ];
}

export function statementLines(view: StatementView, period: { from: Date; to: Date }): string[] {
  const last = new Date(period.to.getFullYear(), period.to.getMonth(), period.to.getDate() - 1);
  const lines = [
    `Statement ${localDayText(period.from.getTime())} to ${localDayText(last.getTime())} (local days: ${view.from} to ${view.to}), made ${view.generatedAt}`,
    "A payment counts in the period of the gateway's processedAt (when it was paid, failed or came back), not of its entry.",
  ];
  lines.push(...issuedLines(view));
  if (view.currencies.length === 0) return [...lines, 'No balance read and no payment processed in this period. Read the balances first ("balances").'];
  return [...lines, ...view.currencies.flatMap((c) => ['', ...currencyLines(c)])];
}

/** Whether this period's statement was issued, and what moved since. */
function issuedLines(view: StatementView): string[] {
  const i = view.issued;
  if (!i) return [];
  const head = `Issued ${i.issuedAt}${i.issuedBy ? ` by ${i.issuedBy}` : ''}, SHA-256 ${i.digest}`;
  if (!i.intact) return [`${head}: THE STORED STATEMENT NO LONGER MATCHES ITS DIGEST (its journal row was changed after issue)`];
  if (i.changes.length === 0) return [`${head}: unchanged since issued`];
  return [`${head}: CHANGED SINCE ISSUED (${plural(i.changes.length, 'figure')})`, ...table(i.changes.map((c) => [`  ${c.figure}`, `issued ${c.issued}`, `now ${c.now}`]))];
}

/** The options that choose a period (a month, or days) and a currency, as `statement` and `accounting export` take them. */
function periodOptions(command: Command, currencyHelp: string): Command {
  return command
    .option('--month <YYYY-MM>', 'a calendar month (local time)', monthOption)
    .option('--from <date>', 'first day (local date, e.g. 2026-11-01)', localDate('--from'))
    .option('--to <date>', 'last day, included (local date)', localDate('--to'))
    .option('--currency <code>', currencyHelp, currencyCode);
}

export function registerStatementCommands(program: Command, deps: CliDeps): void {
  periodOptions(program.command('statement'), 'one currency only')
    .description("a period statement per currency that reconciles with the gateway's balances (this month by default)")
    .option('--format <format>', `a file with every movement instead of the summary: ${FORMATS.join(', ')} (camt053: an ISO 20022 bank statement)`, formatOption)
    .option('--out <file>', 'write the file here (a PDF always needs it)')
    .option('--force', 'overwrite --out if it exists')
    .option('--issue', "store a closed period's statement with the SHA-256 of its figures (later reads say what changed since)")
    .action(async (o: StatementOptions) => {
      const period = periodOf(o);
      const query = { from: period.from.toISOString(), to: period.to.toISOString(), ...(o.currency ? { currencyCode: o.currency } : {}) };
      if (o.issue) {
        if (o.format || o.out) throw new CliUsageError('--issue stores the statement: run it without --format and --out');
        const view = await deps.desk().call('statements', 'issue', query);
        deps.print(statementLines(view, period), view);
        return;
      }
      if (o.format) {
        if (o.format === 'pdf' && !o.out) throw new CliUsageError('A PDF is written to a file: give --out statement.pdf');
        const file = await deps.desk().call('statements', 'export', { ...query, format: o.format });
        await writeOut(deps, o.out, o.force, file, { fileName: file.fileName, format: o.format });
        return;
      }
      if (o.out) throw new CliUsageError('--out writes a file: give --format csv, pdf or camt053 with it');
      const view = await deps.desk().call('statements', 'get', query);
      deps.print(statementLines(view, period), view);
    });
}

const ACCOUNTING_FORMATS: readonly AccountingFormat[] = ['generic', 'xero', 'quickbooks'];
const ACCOUNT_FIELDS = ['clearing', 'payouts', 'fees', 'returns', 'payins', 'taxRate'] as const;

function accountingFormat(value: string): AccountingFormat {
  const format = ACCOUNTING_FORMATS.find((f) => f === value.trim().toLowerCase());
  if (!format) throw new InvalidArgumentError(`--format must be one of ${ACCOUNTING_FORMATS.join(', ')}`);
  return format;
}

function accountsLines(a: AccountingAccounts): string[] {
  return table([
    ['Clearing (the balance at the gateway)', a.clearing],
    ['Payouts paid', a.payouts],
    ['Fees', a.fees],
    ['Payouts returned', a.returns],
    ['Payins received', a.payins],
    ['Xero tax rate', a.taxRate],
  ]);
}

export function registerAccountingCommands(program: Command, deps: CliDeps): void {
  const accounting = program.command('accounting').description('journal lines of a period for the ledger (generic CSV, Xero, QuickBooks), each movement exported once');
  periodOptions(accounting.command('export'), 'one currency only (required for xero and quickbooks)')
    .description("the period's movements as journal lines; movements exported before are left out and listed")
    .requiredOption('--format <format>', `${ACCOUNTING_FORMATS.join(', ')}`, accountingFormat)
    .requiredOption('--out <file>', 'write the file here')
    .option('--force', 'overwrite --out if it exists')
    .action(async (o: Omit<StatementOptions, 'format'> & { format: AccountingFormat; out: string }) => {
      const period = periodOf(o);
      const query = { from: period.from.toISOString(), to: period.to.toISOString(), ...(o.currency ? { currencyCode: o.currency } : {}), format: o.format };
      // The movements are marked exported when the file is made: a target that cannot be written is refused first.
      if (!o.force && (await stat(o.out).then(() => true, () => false))) throw new DeskError('FILE_EXISTS', `${o.out} exists; use --force to overwrite it`);
      const file = await deps.desk().call('statements', 'accounting', query);
      await writeOut(deps, o.out, o.force, file, { exportId: file.exportId, movements: file.movements, rows: file.rows, exportedBefore: file.exportedBefore });
      if (!deps.json()) {
        deps.print([
          `Export ${file.exportId}: ${plural(file.movements, 'movement')} in ${plural(file.rows, 'row')}`,
          ...file.exportedBefore.map((e) => `Left out: ${plural(e.movements, 'movement')} exported before in ${e.exportId} (${e.exportedAt})`),
        ], null);
      }
    });
  const accounts = accounting
    .command('accounts')
    .description('the accounts the export posts to (codes for Xero, names for QuickBooks); with options, changes them')
    .option('--clearing <account>', 'the merchant balance at the gateway (the other side of every line)')
    .option('--payouts <account>', 'payouts paid')
    .option('--fees <account>', 'fees charged')
    .option('--returns <account>', 'payouts returned')
    .option('--payins <account>', 'payins received')
    .option('--tax-rate <name>', "Xero's tax rate name for these lines (e.g. \"Tax Exempt\")");
  accounts.action(async (o: Partial<AccountingAccounts>) => {
    const desk = deps.desk();
    const current = await desk.call('statements', 'accounts', undefined);
    const changes = ACCOUNT_FIELDS.filter((f) => o[f] !== undefined);
    const result = changes.length ? await desk.call('statements', 'setAccounts', { ...current, ...Object.fromEntries(changes.map((f) => [f, o[f]])) }) : current;
    deps.print(accountsLines(result), result);
  });
}
