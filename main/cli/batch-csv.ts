// CLI: `batch template` and `batch validate <file>`. main/cli.ts creates the `batch` command and calls
// registerBatchCsvCommands(batch, deps); the profile-aware parts (currencies, operators, limit, journal) come
// from deps.importOptions when a profile is available, so validation also works on a bare file.
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { currencyDecimals } from '../domain/currencies';
import { formatMinor } from '../domain/money';
import { importPayoutCsvFile } from '../csv/import';
import { payoutCsvTemplate } from '../csv/template';
import { CsvFileError, type CsvImportOptions, type CsvImportResult, type CsvIssue } from '../csv/types';

export type BatchCsvProfileOptions = Omit<CsvImportOptions, 'fileName' | 'decimalComma'>;

export interface BatchCsvCliDeps {
  /** Options from the active profile and its journal; called once per validate. Without it only the file is checked. */
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

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

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

/** The human report of `batch validate`. */
export function formatValidationReport(result: CsvImportResult, currencies?: ReadonlyMap<string, number>): string {
  const { counts } = result;
  const delimiter = result.delimiter === '\t' ? 'tab' : `"${result.delimiter}"`;
  const lines = [
    `${result.fileName}: ${plural(counts.rows, 'row')}, ${counts.valid.toLocaleString('en-US')} valid, ${counts.invalid.toLocaleString('en-US')} invalid, ${plural(counts.warnings, 'warning')}`,
    `  read as ${ENCODING_LABELS[result.encoding]}, delimiter ${delimiter}, decimal separator "${result.decimalSeparator}"; SHA-256 ${result.sha256}`,
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
  lines.push(counts.invalid > 0 ? `Fix the ${plural(counts.invalid, 'invalid row')} and validate again.` : 'All rows are valid.');
  return `${lines.join('\n')}\n`;
}

/** The JSON shape of `batch validate --json` (rows are left out: a 100,000-row file would flood the terminal). */
export function validationJson(result: CsvImportResult, currencies?: ReadonlyMap<string, number>): Record<string, unknown> {
  return {
    ok: result.counts.invalid === 0,
    fileName: result.fileName,
    sha256: result.sha256,
    encoding: result.encoding,
    delimiter: result.delimiter,
    decimalSeparator: result.decimalSeparator,
    counts: result.counts,
    totals: result.totals.map((t) => ({ ...t, amount: formatMinor(t.amountMinor, currencyDecimals(t.currencyCode, currencies)) })),
    unknownColumns: result.unknownColumns,
    errors: result.errors,
    warnings: result.warnings,
  };
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
        stderr(code === 'EEXIST' ? `${opts.out} exists; use --force to overwrite it\n` : `Cannot write ${opts.out} (${code})\n`);
        setExitCode(1);
      }
    });

  batch
    .command('validate')
    .description('check a payout CSV file: counts, totals per currency, and every error and warning with its row and column')
    .argument('<file>', 'the CSV file')
    .option('--json', 'print the report as JSON')
    .option('--decimal-comma', 'read amounts with a decimal comma (default: only when the delimiter is ";")')
    .option('--decimal-dot', 'read amounts with a decimal dot even when the delimiter is ";"')
    .action(async (file: string, _opts: unknown, command: Command) => {
      const opts = command.optsWithGlobals<{ json?: boolean; decimalComma?: boolean; decimalDot?: boolean }>();
      const profile = deps.importOptions ? await deps.importOptions(command) : {};
      const decimalComma = opts.decimalComma ? true : opts.decimalDot ? false : undefined;
      try {
        const result = await importPayoutCsvFile(file, { ...profile, decimalComma });
        stdout(opts.json ? `${JSON.stringify(validationJson(result, profile.currencies), null, 2)}\n` : formatValidationReport(result, profile.currencies));
        setExitCode(result.counts.invalid > 0 ? VALIDATE_EXIT.invalidRows : VALIDATE_EXIT.ok);
      } catch (error) {
        if (!(error instanceof CsvFileError)) throw error;
        if (opts.json) {
          const body = { ok: false, error: { code: error.code, message: error.message, rowNumber: error.rowNumber, columns: error.columns } };
          stdout(`${JSON.stringify(body, null, 2)}\n`);
        } else {
          stderr(`${file}: ${error.message} (${error.code})\n`);
        }
        setExitCode(VALIDATE_EXIT.fileError);
      }
    });
}
