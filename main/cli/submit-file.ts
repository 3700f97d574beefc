// Submitting a payout CSV from the CLI, one way for `batch submit` and `team send --file`: the file is
// handed over like one dropped on the window, validated by the batches service the screen calls (the same
// importer, funding check, journal checks and warnings), refused while any row is invalid, refused while a
// warning (duplicate rows, file already submitted, bank details changed) is not confirmed, then submitted.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { BatchValidation, BatchView, CsvIssueView, ExecuteOn } from '../../contract/api';
import { DeskError } from '../desk/services';
import type { CliDeps, CliDesk } from './deps';
import { currencyCode, plural } from './shared';

const MAX_ISSUES = 100;

export interface FileSubmitOptions {
  confirmWarnings?: boolean;
  currencies?: string[];
  decimalComma?: boolean;
  decimalDot?: boolean;
}

/** The options every command that submits a CSV offers. */
export function fileSubmitOptions(command: Command): Command {
  return command
    .option('--confirm-warnings', 'confirm every warning (duplicate rows, file already submitted, bank details changed)')
    .option('--currencies <codes>', 'send only the rows in these currencies (e.g. the funded ones)', (v) => v.split(',').map(currencyCode))
    .option('--decimal-comma', 'read amounts with a decimal comma (default: only when the delimiter is ";")')
    .option('--decimal-dot', 'read amounts with a decimal dot even when the delimiter is ";"');
}

const issueLine = (i: CsvIssueView) => `  ${i.rowNumber === 0 ? 'file' : `row ${i.rowNumber}`}${i.column ? `, column "${i.column}"` : ''}: ${i.code} - ${i.message}`;

/** Refuses with the issues listed (stderr, human mode) and summed up in the error itself. */
function refuse(deps: CliDeps, code: string, title: string, issues: CsvIssueView[]): never {
  if (!deps.json()) {
    const more = issues.length > MAX_ISSUES ? [`  … and ${issues.length - MAX_ISSUES} more`] : [];
    deps.io.stderr(`${[`${title}:`, ...issues.slice(0, MAX_ISSUES).map(issueLine), ...more].join('\n')}\n`);
  }
  const first = issues.slice(0, 3).map((i) => `${i.rowNumber === 0 ? 'file' : `row ${i.rowNumber}`}: ${i.code}`).join(', ');
  throw new DeskError(code, `${title} (${first}${issues.length > 3 ? ', …' : ''}); nothing was sent`);
}

/** The shortfall message in the CLI's own words: which --currencies would send the funded rows. */
export function withCurrenciesHint(message: string, checked: Pick<BatchValidation, 'funding'>, chosen: string[] | undefined): string {
  const funded = checked.funding.filter((f) => !f.shortfall && (!chosen || chosen.includes(f.currencyCode))).map((f) => f.currencyCode);
  const hint = funded.length > 0 ? `to send only the funded ones, run again with --currencies ${funded.join(',')}` : 'no currency of this file is funded; top up first (--currencies picks which currencies to send)';
  return `${message} (${hint})`;
}

/** Validates the file through the batches service (what `submitValidated` then refuses or sends). */
export async function validateFile(deps: CliDeps, desk: CliDesk, file: string, o: FileSubmitOptions): Promise<BatchValidation> {
  const decimalComma = o.decimalComma ? true : o.decimalDot ? false : undefined;
  // Main checks the path and issues the token validation takes (validation never reads a path it did not grant).
  const granted = await desk.call('app', 'fileDropped', { purpose: 'csv', path: resolve(file) });
  const checked = await desk.call('batches', 'validateFile', { source: { kind: 'granted', token: granted.token }, ...(decimalComma !== undefined ? { decimalComma } : {}) });
  return checked;
}

/**
 * Submits a validated file: refused while any row is invalid or a warning is not confirmed (--confirm-warnings),
 * and by the service when a currency is short. `batchId` names the batch (the desks of a team agree on it).
 * `executeOn` releases it at that time (the calendar); without it, at the time the file's rows ask for, if ahead.
 */
export async function submitValidated(
  deps: CliDeps, desk: CliDesk, checked: BatchValidation, o: FileSubmitOptions, batchId?: string, executeOn?: ExecuteOn,
): Promise<{ view: BatchView; lines: string[] }> {
  // A problem of the file as a whole (rows asking for different release dates) leaves every row valid.
  const invalid = checked.counts.invalid > 0 ? `${checked.counts.invalid} of ${plural(checked.counts.rows, 'row')} ${checked.counts.invalid === 1 ? 'is' : 'are'} invalid` : 'the file cannot be sent as it is';
  if (checked.errors.length > 0) refuse(deps, 'BATCH_HAS_ERRORS', `${checked.fileName}: ${invalid}`, checked.errors);
  if (checked.warnings.length > 0 && !o.confirmWarnings) {
    refuse(deps, 'WARNINGS_NOT_CONFIRMED', `${checked.fileName}: ${plural(checked.warnings.length, 'warning')} ${checked.warnings.length === 1 ? 'needs' : 'need'} --confirm-warnings`, checked.warnings);
  }
  const c = checked.counts;
  const lines = [`${checked.fileName}: ${plural(c.rows, 'row')}, all valid${checked.warnings.length ? `, ${plural(checked.warnings.length, 'warning')} confirmed` : ''}; SHA-256 ${checked.sha256}`];
  for (const f of checked.funding) {
    if (f.shortfall) lines.push(`  warning: ${f.currencyCode} needs ${f.required.amount}, available ${f.available?.amount ?? '?'} (short by ${f.shortfall.amount})`);
  }
  // The file's own date (execute_on, ReqdExctnDt): what it means, or that --execute-on wins over it.
  if (checked.executeOnNote) lines.push(executeOn ? `  The file's own date is set aside: --execute-on ${executeOn.local.replace('T', ' ')} wins over it.` : `  ${checked.executeOnNote}.`);
  // Warnings are confirmed by row; the file-level one ("already submitted") is row 0.
  const view = await desk
    .call('batches', 'submit', {
      validationId: checked.validationId,
      confirmedWarningRows: [...new Set(checked.warnings.map((w) => w.rowNumber))],
      ...(o.currencies ? { currencyCodes: o.currencies } : {}),
      ...(batchId ? { batchId } : {}),
      ...(executeOn ? { executeOn } : {}),
    })
    .catch((error: unknown) => {
      throw error instanceof DeskError && error.code === 'INSUFFICIENT_BALANCE' ? new DeskError(error.code, withCurrenciesHint(error.message, checked, o.currencies)) : error;
    });
  lines.push(`Batch ${view.id} submitted: ${plural(view.progress.total, 'payout')}`);
  return { view, lines };
}
