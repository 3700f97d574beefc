// CLI: `batch template` and `batch validate <file>`. main/cli/index.ts creates the `batch` command and calls
// registerBatchCsvCommands(batch, deps). With a profile (--profile or the current one) validate runs the
// very validation `batch submit` runs (the batches service: the gateway's currencies and operators, the
// per-payout ceiling, the journal's ids and bank details, the balances); without one it checks the file
// alone and lists the checks it skipped, so "all valid" is never claimed for checks that did not run.
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { BatchValidation } from '../../contract/api';
import { currencyDecimals } from '../domain/currencies';
import { formatMinor } from '../domain/money';
import { importPayoutFileAt, isPain001Result, type PayoutFileResult } from '../iso20022/payout-file';
import { isPain001FileErrorCode } from '../iso20022/errors';
import { payoutCsvTemplate } from '../csv/template';
import { CSV_FILE_ERROR_CODES, CsvFileError, type CsvImportOptions, type CsvImportResult, type CsvIssue } from '../csv/types';
import { plural } from './shared';

export type BatchCsvProfileOptions = Omit<CsvImportOptions, 'fileName' | 'decimalComma'>;

/** What validate reports when a profile was there to check against. */
export interface ProfileValidation {
  profile: { id: string; baseUrl: string; maxAmountMinor: number | null };
  view: BatchValidation;
}

export interface BatchCsvCliDeps {
  /**
   * Validates through the profile's batches service, as submit does; null when there is no profile (none named,
   * none current). Called once per validate. Without it, or when it gives null, only the file is checked.
   */
  profileValidation?: (file: string, decimalComma: boolean | undefined) => Promise<ProfileValidation | null>;
  /** Options from the active profile and its journal (used only without profileValidation). */
  importOptions?: (command: Command) => BatchCsvProfileOptions | Promise<BatchCsvProfileOptions>;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** Defaults to setting process.exitCode. */
  setExitCode?: (code: number) => void;
}

/** Exit codes of `batch validate`. */
export const VALIDATE_EXIT = { ok: 0, invalidRows: 1, fileError: 2 } as const;

const MAX_ISSUES_PRINTED = 100;

const ENCODING_LABELS: Record<CsvImportResult['encoding'], string> = {
  'utf-8': 'UTF-8',
  'utf-8-bom': 'UTF-8 (with BOM)',
  'utf-16le': 'UTF-16 LE',
  'utf-16be': 'UTF-16 BE',
  'windows-1252': 'Windows-1252',
};

function describeIssue(issue: CsvIssue): string {
  const where = issue.rowNumber === 0 ? 'file' : `row ${issue.rowNumber}`;
  const column = issue.column ? `, column "${issue.column}"` : '';
  return `  ${where}${column}: ${issue.code} - ${issue.message}`;
}

function issueLines(title: string, issues: readonly CsvIssue[]): string[] {
  if (issues.length === 0) return [];
  const shown = issues.slice(0, MAX_ISSUES_PRINTED).map(describeIssue);
  const more = issues.length > MAX_ISSUES_PRINTED ? [`  … and ${issues.length - MAX_ISSUES_PRINTED} more (use --json to see all)`] : [];
  return [`${title}:`, ...shown, ...more];
}

/** "ISO 20022 pain.001.001.09, 12 transactions in 3 payment groups (MsgId RUN-7)": how a pain.001 was read. */
export function pain001Line(m: { version: string; messageId: string; transactions: number; paymentGroups: number }): string {
  return `ISO 20022 ${m.version}, ${plural(m.transactions, 'transaction')} in ${plural(m.paymentGroups, 'payment group')} (MsgId ${m.messageId})`;
}

/** How the file was read: a CSV's encoding, delimiter and decimal separator, or a pain.001's message. */
function readAsLine(result: PayoutFileResult): string {
  if (isPain001Result(result)) return `  read as ${pain001Line(result.iso20022)}; SHA-256 ${result.sha256}`;
  const delimiter = result.delimiter === '\t' ? 'tab' : `"${result.delimiter}"`;
  return `  read as ${ENCODING_LABELS[result.encoding]}, delimiter ${delimiter}, decimal separator "${result.decimalSeparator}"; SHA-256 ${result.sha256}`;
}

/** The human report of `batch validate`. */
export function formatValidationReport(result: PayoutFileResult, currencies?: ReadonlyMap<string, number>, fileOnly = false): string {
  const { counts } = result;
  const lines = [
    `${result.fileName}: ${plural(counts.rows, 'row')}, ${counts.valid.toLocaleString('en-US')} valid, ${counts.invalid.toLocaleString('en-US')} invalid, ${plural(counts.warnings, 'warning')}`,
    readAsLine(result),
  ];
  if (result.totals.length > 0) {
    lines.push('Totals of the valid rows:');
    for (const total of result.totals) {
      const amount = formatMinor(total.amountMinor, currencyDecimals(total.currencyCode, currencies));
      lines.push(`  ${total.currencyCode} ${amount.padStart(18)}  (${plural(total.count, 'payout')})`);
    }
  }
  if (result.unknownColumns.length > 0) {
    lines.push(`Columns not used for payouts (kept for the results export): ${result.unknownColumns.map((c) => `"${c}"`).join(', ')}`);
  }
  lines.push(...issueLines('Errors (these rows will not be sent)', result.errors));
  lines.push(...issueLines('Warnings (to be confirmed before submitting)', result.warnings));
  const clean = fileOnly ? 'No invalid rows in the file itself; the profile checks below did not run.' : 'All rows are valid.';
  lines.push(counts.invalid > 0 ? `Fix the ${plural(counts.invalid, 'invalid row')} and validate again.` : clean);
  return `${lines.join('\n')}\n`;
}

/** The JSON shape of `batch validate --json` (rows are left out: a 100,000-row file would flood the terminal). */
export function validationJson(result: PayoutFileResult, currencies?: ReadonlyMap<string, number>): Record<string, unknown> {
  const pain001 = isPain001Result(result);
  return {
    ok: result.counts.invalid === 0,
    fileName: result.fileName,
    sha256: result.sha256,
    encoding: pain001 ? 'utf-8' : result.encoding,
    delimiter: pain001 ? '' : result.delimiter,
    decimalSeparator: pain001 ? '.' : result.decimalSeparator,
    iso20022: pain001 ? result.iso20022 : null,
    counts: result.counts,
    totals: result.totals.map((t) => ({ ...t, amount: formatMinor(t.amountMinor, currencyDecimals(t.currencyCode, currencies)) })),
    unknownColumns: result.unknownColumns,
    errors: result.errors,
    warnings: result.warnings,
  };
}

/** What only a profile can check: listed as skipped when validate runs on the file alone. */
export const PROFILE_CHECKS = [
  'the currencies and operators the gateway offers (e.g. an unknown currency, an unknown operator, an operator that does not pay that currency)',
  "the profile's per-payout ceiling",
  "the journal (ids already used, the file already submitted, changed bank details)",
  'the available balances',
  "the release date the rows ask for (an execute_on column, a pain.001 ReqdExctnDt: one per batch, read in the profile's time zone)",
] as const;

function offlineLines(): string[] {
  return [
    'Checked the file alone (no profile): columns, amounts, formats and duplicates within the file.',
    'Skipped, as there is no profile to check against:',
    ...PROFILE_CHECKS.map((c) => `  - ${c}`),
    'Pass --profile <id> (or make a profile current) to run the checks "batch submit" runs.',
  ];
}

const shortOf = (view: BatchValidation) => view.funding.filter((f) => f.shortfall);

/** What this validation did check: a check that could not run (see skippedChecks) is not named as checked. */
function checkedParts(view: BatchValidation, ceiling: string): string[] {
  const gatewayLists = !view.skippedChecks.some((c) => c.startsWith('the currencies and operators'));
  return [
    ...(gatewayLists ? ["the gateway's currencies and operators"] : []),
    `the per-payout ceiling (${ceiling})`,
    'the journal',
    ...(view.balancesRead ? ['the balances'] : []),
  ];
}

/** The human report of `batch validate` with a profile: the same numbers and issues as the app's review. */
export function formatProfileValidation({ profile, view }: ProfileValidation): string {
  const { counts } = view;
  const delimiter = view.delimiter === '\t' ? 'tab' : `"${view.delimiter}"`;
  const label = ENCODING_LABELS[view.encoding as CsvImportResult['encoding']] ?? view.encoding;
  const ceiling = profile.maxAmountMinor ? `${profile.maxAmountMinor} minor units of each currency` : 'none set';
  const lines = [
    `${view.fileName}: ${plural(counts.rows, 'row')}, ${counts.valid.toLocaleString('en-US')} valid, ${counts.invalid.toLocaleString('en-US')} invalid, ${plural(counts.warnings, 'warning')}`,
    view.iso20022 ? `  read as ${pain001Line(view.iso20022)}; SHA-256 ${view.sha256}` : `  read as ${label}, delimiter ${delimiter}; SHA-256 ${view.sha256}`,
    `Checked against profile ${profile.id} (${profile.baseUrl}): ${checkedParts(view, ceiling).join(', ')}.`,
  ];
  if (view.skippedChecks.length > 0) lines.push('Not checked:', ...view.skippedChecks.map((c) => `  - ${c}`));
  if (view.funding.length > 0) {
    lines.push(view.balancesRead ? 'Totals of the valid rows against the available balance:' : 'Totals of the valid rows against the last known balance (not read now):');
    for (const f of view.funding) {
      const against = f.shortfall ? `SHORT by ${f.shortfall.amount} (available ${f.available?.amount})` : f.available ? `available ${f.available.amount}` : 'balance unknown';
      lines.push(`  ${f.currencyCode} ${f.required.amount.padStart(18)}  (${plural(f.count, 'payout')})  ${against}`);
    }
  }
  if (view.unknownColumns.length > 0) {
    lines.push(`Columns not used for payouts (kept for the results export): ${view.unknownColumns.map((c) => `"${c}"`).join(', ')}`);
  }
  lines.push(...issueLines('Errors (these rows will not be sent)', view.errors as CsvIssue[]));
  lines.push(...issueLines('Warnings (to be confirmed before submitting)', view.warnings as CsvIssue[]));
  if (view.executeOnNote) lines.push(`${view.executeOnNote}.`);
  const short = shortOf(view);
  const fileErrors = view.errors.filter((e) => e.rowNumber === 0).length;
  if (counts.invalid > 0) lines.push(`Fix the ${plural(counts.invalid, 'invalid row')} and validate again.`);
  else if (fileErrors > 0) lines.push('Fix the file and validate again: it cannot be sent as it is.');
  else if (short.length > 0) lines.push(`All rows are valid, but ${short.map((f) => f.currencyCode).join(', ')} is not funded: submit refuses it. Top up, or submit only the funded currencies with --currencies.`);
  else lines.push('All rows are valid: the checks "batch submit" runs passed.');
  return `${lines.join('\n')}\n`;
}

export function registerBatchCsvCommands(batch: Command, deps: BatchCsvCliDeps = {}): void {
  const stdout = deps.stdout ?? ((text: string) => process.stdout.write(text));
  const stderr = deps.stderr ?? ((text: string) => process.stderr.write(text));
  const setExitCode = deps.setExitCode ?? ((code: number) => (process.exitCode = code));

  batch
    .command('template')
    .description('write the payout CSV template (header and one example row)')
    .option('--out <file>', 'write to this file instead of standard output')
    .option('--force', 'overwrite the --out file if it exists')
    .action(async (opts: { out?: string; force?: boolean }) => {
      const template = payoutCsvTemplate();
      if (!opts.out) {
        stdout(template);
        return;
      }
      try {
        await writeFile(opts.out, template, { flag: opts.force ? 'w' : 'wx' });
        stderr(`Template written to ${opts.out}\n`);
      } catch (error) {
        const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'unknown error';
        // The error line every command prints (runCli's), though this one is printed here.
        stderr(`error: ${code === 'EEXIST' ? `${opts.out} exists; use --force to overwrite it` : `Cannot write ${opts.out} (${code})`}\n`);
        setExitCode(1);
      }
    });

  batch
    .command('validate')
    .description('check a payout CSV or ISO 20022 pain.001 file: counts, totals per currency, and every error and warning with its row and column (a pain.001: its transaction and element)')
    .argument('<file>', 'the CSV or pain.001 (XML) file')
    .option('--json', 'print the report as JSON')
    .option('--decimal-comma', 'read amounts with a decimal comma (default: only when the delimiter is ";")')
    .option('--decimal-dot', 'read amounts with a decimal dot even when the delimiter is ";"')
    .action(async (file: string, _opts: unknown, command: Command) => {
      const opts = command.optsWithGlobals<{ json?: boolean; decimalComma?: boolean; decimalDot?: boolean }>();
      const decimalComma = opts.decimalComma ? true : opts.decimalDot ? false : undefined;
      try {
        const checked = deps.profileValidation ? await deps.profileValidation(file, decimalComma) : null;
        if (checked) {
          const { view, profile } = checked;
          // An error of the file as a whole (rows asking for different release dates) fails it with every row valid.
          const ok = view.counts.invalid === 0 && view.errors.length === 0 && shortOf(view).length === 0;
          if (opts.json) {
            const { rows: _rows, validationId: _id, ...rest } = view;
            stdout(`${JSON.stringify({ ok, profile: profile.id, ...rest }, null, 2)}\n`);
          } else {
            stdout(formatProfileValidation(checked));
          }
          setExitCode(ok ? VALIDATE_EXIT.ok : VALIDATE_EXIT.invalidRows);
          return;
        }
        const profile = deps.importOptions ? await deps.importOptions(command) : {};
        const result = await importPayoutFileAt(file, { ...profile, decimalComma });
        if (opts.json) {
          const skippedChecks = deps.importOptions ? [] : [...PROFILE_CHECKS];
          stdout(`${JSON.stringify({ ...validationJson(result, profile.currencies), profile: null, skippedChecks }, null, 2)}\n`);
        } else {
          const fileOnly = !deps.importOptions;
          stdout(formatValidationReport(result, profile.currencies, fileOnly) + (fileOnly ? `${offlineLines().join('\n')}\n` : ''));
        }
        setExitCode(result.counts.invalid > 0 ? VALIDATE_EXIT.invalidRows : VALIDATE_EXIT.ok);
      } catch (error) {
        // A file that cannot be read at all: from the importer itself, or through the service (same codes).
        const code = (error as { code?: unknown }).code;
        const fileCode = typeof code === 'string' && ((CSV_FILE_ERROR_CODES as readonly string[]).includes(code) || isPain001FileErrorCode(code));
        if (!(error instanceof CsvFileError) && !fileCode) throw error;
        const e = error as { code: string; message: string; rowNumber?: number | null; columns?: readonly string[] };
        if (opts.json) {
          const body = { ok: false, error: { code: e.code, message: e.message, rowNumber: e.rowNumber ?? null, columns: e.columns ?? [] } };
          stdout(`${JSON.stringify(body, null, 2)}\n`);
        } else {
          stderr(`error: ${file}: ${e.message} (${e.code})\n`);
        }
        setExitCode(VALIDATE_EXIT.fileError);
      }
    });
}
