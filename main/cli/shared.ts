// Helpers several CLI command modules share: option parsers, the history filter options, tables,
// waiting, and writing a file result.
import { paymentStatusWord } from '../../contract/state-words';
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import type { FileContent, HistoryFilters } from '../../contract/api';
import { DeskError } from '../desk/services';
import { CliUsageError, type CliDeps } from './deps';

/** Exit code of a command that stopped before its payments were final. */
export const PENDING_EXIT = 3;

export function intOption(label: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${label} must be a whole number`);
    return Number(value);
  };
}

export function currencyCode(value: string): string {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) throw new InvalidArgumentError('must be a three-letter code such as EUR');
  return code;
}

export function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
}

/** Every count the CLI prints goes through plural (contract/plural.ts). */
export { plural } from '../../contract/plural';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Ctrl-C while a command waits stops the waiting, not the process: the engine then stops cleanly and nothing is lost. */
export function interrupted(): { readonly stop: boolean; done(): void } {
  const state = { stop: false, done: () => process.off('SIGINT', onSignal) };
  const onSignal = () => void (state.stop = true);
  process.once('SIGINT', onSignal);
  return state;
}

// ---- history filters (payouts list, history export) ---------------------------------------------

const list = (value: string) => value.split(',').map((v) => v.trim()).filter(Boolean);

/** A date (YYYY-MM-DD, UTC) or an ISO time; a bare --to date includes that whole day. */
function timeOption(label: string, endOfDay: boolean) {
  return (value: string): string => {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw new InvalidArgumentError(`${label} must be a date (2024-05-31) or an ISO time`);
    return new Date(/^\d{4}-\d{2}-\d{2}$/.test(value.trim()) && endOfDay ? ms + 86_400_000 : ms).toISOString();
  };
}

export function addFilterOptions(command: Command): Command {
  return command
    .option('--status <statuses>', 'comma-separated statuses, e.g. SUCCESS,FAILED', (v) => list(v).map((s) => s.toUpperCase()))
    .option('--currency <codes>', 'comma-separated currency codes', (v) => list(v).map(currencyCode))
    .option('--from <date>', 'created at or after (date or ISO time, UTC)', timeOption('--from', false))
    .option('--to <date>', 'created before (ISO time), or on or before a date', timeOption('--to', true))
    .option('--batch <batchId>', 'only the payouts of this batch')
    .option('--search <text>', 'id, account name or number, e-mail or reference');
}

export interface FilterOptions { status?: string[]; currency?: string[]; from?: string; to?: string; batch?: string; search?: string }

export function filtersFrom(o: FilterOptions, kinds?: ('payout' | 'payin')[]): HistoryFilters {
  return {
    ...(kinds ? { kinds } : {}),
    ...(o.status?.length ? { statuses: o.status } : {}),
    ...(o.currency?.length ? { currencyCodes: o.currency } : {}),
    ...(o.from ? { from: o.from } : {}),
    ...(o.to ? { to: o.to } : {}),
    ...(o.batch ? { batchId: o.batch } : {}),
    ...(o.search ? { search: o.search } : {}),
  };
}

/** A file result: to --out (never overwritten without --force), else to standard output. */
export async function writeOut(deps: CliDeps, out: string | undefined, force: boolean | undefined, file: FileContent, summary: Record<string, unknown>): Promise<void> {
  if (!out) {
    if (deps.json()) deps.print('', file);
    else if (file.encoding === 'base64') throw new CliUsageError(`${file.fileName} is not text: write it to a file with --out`);
    else deps.io.stdout(file.content);
    return;
  }
  const bytes = file.encoding === 'base64' ? Buffer.from(file.content, 'base64') : file.content;
  await writeFile(out, bytes, { flag: force ? 'w' : 'wx' }).catch((error: unknown) => {
    const code = (error as { code?: unknown }).code;
    throw code === 'EEXIST' ? new DeskError('FILE_EXISTS', `${out} exists; use --force to overwrite it`) : error;
  });
  deps.print(`Written to ${out}`, { path: resolve(out), ...summary });
}

// ---- money-safety vocabulary (held, unknown, missing payouts; retries) ---------------------------

/** Exit code of a payout that is kept HELD: nothing was sent; a person must release or discard it. */
export const HELD_EXIT = 4;

/** One status word for a payout, attempt or batch row, in the vocabulary the desk UI uses too. */
export const statusWord = paymentStatusWord;

/** Exact sum of decimal amount strings (as the services give them); never a float. */
export function sumAmounts(amounts: readonly string[]): string {
  const scale = Math.max(0, ...amounts.map((a) => a.split('.')[1]?.length ?? 0));
  let total = 0n;
  for (const a of amounts) {
    const negative = a.trim().startsWith('-');
    const [whole = '0', fraction = ''] = a.trim().replace(/^[-+]/, '').split('.');
    if (!/^\d+$/.test(whole) || !/^\d*$/.test(fraction)) throw new Error(`not a decimal amount: ${a}`);
    const minor = BigInt(`${whole}${fraction.padEnd(scale, '0')}`);
    total += negative ? -minor : minor;
  }
  const digits = (total < 0n ? -total : total).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return total < 0n ? `-${text}` : text;
}

/** Totals per currency (in first-seen order) of rows that carry a `money`. */
export function totalsByCurrency(rows: readonly { money: { amount: string; currencyCode: string } }[]): { currencyCode: string; amount: string; count: number }[] {
  const groups = new Map<string, string[]>();
  for (const r of rows) groups.set(r.money.currencyCode, [...(groups.get(r.money.currencyCode) ?? []), r.money.amount]);
  return [...groups].map(([currencyCode, amounts]) => ({ currencyCode, amount: sumAmounts(amounts), count: amounts.length }));
}

/**
 * Asks for a yes/no confirmation: through io.ask when given, else on the terminal (question on
 * stderr, so --json output stays clean). Resolves to null when there is nobody to ask.
 */
export async function askYesNo(deps: CliDeps, question: string): Promise<boolean | null> {
  let answer: string | null;
  if (deps.io.ask) {
    answer = await deps.io.ask(`${question} [y/N] `);
  } else if (process.stdin.isTTY) {
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      answer = await rl.question(`${question} [y/N] `);
    } finally {
      rl.close();
    }
  } else {
    return null;
  }
  return answer === null ? null : /^\s*y(es)?\s*$/i.test(answer);
}

/** Reads a passphrase or secret from a file (first line) or a named environment variable; never from argv. */
export async function readSecretInput(deps: CliDeps, o: { file?: string; env?: string }, what: string): Promise<string | undefined> {
  if (o.file && o.env) throw new CliUsageError(`Give the ${what} either from a file or from an environment variable, not both`);
  if (o.file) return (await readFile(o.file, 'utf8')).split(/\r?\n/)[0] ?? '';
  if (o.env) {
    const value = deps.env[o.env];
    if (value === undefined) throw new CliUsageError(`Environment variable ${o.env} (for the ${what}) is not set`);
    return value;
  }
  return undefined;
}
