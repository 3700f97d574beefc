// The batch CSV importer: bytes → decoded text → csv-parse (streaming, fed in pieces) → one validated
// payout per row. It yields to the event loop between pieces so the main process stays responsive on a
// 100,000-row file. Row problems come back in the result; only whole-file problems throw CsvFileError.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse, type Parser } from 'csv-parse';
import { z } from 'zod';
import { decodeCsvBytes } from './decode';
import { detectDialect } from './dialect';
import { mapHeader, type HeaderMap } from './headers';
import { checkAgainstJournal } from './journal-checks';
import { TimeSlicer } from './time-slice';
import { RowValidator } from './validate';
import {
  CsvFileError,
  MAX_CSV_BYTES,
  MAX_CSV_ROWS,
  type CsvCurrencyTotal,
  type CsvDelimiter,
  type CsvImportOptions,
  type CsvImportResult,
  type CsvIssue,
  type CsvValidRow,
} from './types';

/**
 * Characters handed to the parser at a time (about 2 ms of parsing and checking), and bytes hashed at a time.
 * The event loop gets a turn as soon as a few milliseconds of such pieces have run (time-slice.ts), so no
 * stall comes near the 50 ms the issue allows, whatever the machine's speed.
 */
const PIECE_CHARS = 16 * 1024;
const HASH_SLICE_BYTES = 1024 * 1024;
const MAX_RECORD_CHARS = 1_000_000;

const yieldNow = async (): Promise<void> => {
  await nextTurn();
};

/** How far back a row like an earlier payout is flagged as a possible duplicate, unless the caller says otherwise. */
export const DEFAULT_REPEAT_WINDOW_DAYS = 30;

const optionsSchema = z.object({
  fileName: z.string().optional(),
  maxAmountMinor: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  decimalComma: z.boolean().optional(),
  repeatWindowDays: z.number().int().min(0).max(3650).optional(),
  operators: z
    .array(z.object({ code: z.string(), paymentMethodCode: z.string().optional(), currencyCodes: z.array(z.string()).optional() }))
    .optional(),
});

function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** The size is rounded up, so a file just over the limit never reads "50.0 MB; the limit is 50 MB". */
function fileTooLarge(size: number): CsvFileError {
  const mb = (Math.ceil((size / 1024 / 1024) * 10) / 10).toFixed(1);
  return new CsvFileError(
    'FILE_TOO_LARGE',
    `The file is ${mb} MB; the limit is ${MAX_CSV_BYTES / 1024 / 1024} MB per file. Split it into smaller files.`,
  );
}

/** Receives parsed records in order and turns them into rows; remembers the first whole-file problem. */
class RecordSink {
  rowsSeen = 0;
  dataRows = 0;
  header: HeaderMap | null = null;
  fatal: CsvFileError | null = null;
  readonly rows: CsvValidRow[] = [];
  readonly errors: CsvIssue[] = [];
  readonly warnings: CsvIssue[] = [];
  invalidRows = 0;
  private validator: RowValidator | null = null;
  private skipSepLine: boolean;

  constructor(
    private readonly delimiter: CsvDelimiter,
    private readonly options: CsvImportOptions,
    private readonly decimalSeparator: '.' | ',',
    sepLine: boolean,
  ) {
    this.skipSepLine = sepLine;
  }

  accept(cells: string[]): void {
    if (this.fatal) return;
    if (this.skipSepLine) {
      this.skipSepLine = false;
      return;
    }
    this.rowsSeen++;
    if (cells.every((c) => c.trim() === '')) return;
    try {
      if (!this.validator) {
        this.header = mapHeader(cells, this.delimiter, this.rowsSeen);
        this.validator = new RowValidator(this.header, this.options, this.decimalSeparator, this);
        return;
      }
      this.dataRows++;
      if (this.dataRows > MAX_CSV_ROWS) {
        throw new CsvFileError(
          'TOO_MANY_ROWS',
          `The file has more than ${formatCount(MAX_CSV_ROWS)} payout rows (row ${this.rowsSeen} is one too many); split it into files of at most ${formatCount(MAX_CSV_ROWS)} rows.`,
          this.rowsSeen,
        );
      }
      const row = this.validator.check(cells, this.rowsSeen);
      if (row) this.rows.push(row);
      else this.invalidRows++;
    } catch (error) {
      if (!(error instanceof CsvFileError)) throw error;
      this.fatal = error;
    }
  }

  columnOf(field: 'idPayout' | 'accountNumber'): string {
    return this.validator?.columnName(field) ?? field;
  }
}

function parserErrorToFileError(error: unknown, rowNumber: number): CsvFileError {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (code === 'CSV_QUOTE_NOT_CLOSED' || code === 'CSV_MAX_RECORD_SIZE') {
    return new CsvFileError(
      'UNTERMINATED_QUOTE',
      `Row ${rowNumber} opens a quoted value (") that is never closed, so the rest of the file would be read as one cell; add the closing quote in row ${rowNumber} or remove the opening one.`,
      rowNumber,
    );
  }
  return new CsvFileError(
    'MALFORMED_QUOTE',
    `Row ${rowNumber} has a quoted value followed by other text (like "abc"def); put the whole value in double quotes and double any quote inside it ("") or remove the quotes.`,
    rowNumber,
  );
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  const slicer = new TimeSlicer(yieldNow, 1);
  for (let i = 0; i < bytes.length; i += HASH_SLICE_BYTES) {
    hash.update(bytes.subarray(i, i + HASH_SLICE_BYTES));
    if (i + HASH_SLICE_BYTES < bytes.length && slicer.due()) await slicer.pause();
  }
  return hash.digest('hex');
}

/** True when the text is only white space (checked piece by piece: a 50 MB file of spaces is no reason to stall). */
async function isBlank(chunks: readonly string[]): Promise<boolean> {
  const slicer = new TimeSlicer(yieldNow, 1);
  for (const chunk of chunks) {
    if (!/^\s*$/.test(chunk)) return false;
    if (slicer.due()) await slicer.pause();
  }
  return true;
}

/** Feeds the text to csv-parse piece by piece, yielding to the event loop every few milliseconds. */
async function parseInto(chunks: string[], sink: RecordSink, delimiter: CsvDelimiter): Promise<void> {
  let parseError: unknown = null;
  const parser: Parser = parse({
    delimiter,
    record_delimiter: ['\r\n', '\n', '\r'],
    quote: '"',
    escape: '"',
    relax_column_count: true,
    relax_quotes: true,
    trim: true,
    skip_empty_lines: false,
    max_record_size: MAX_RECORD_CHARS,
  });
  // Records arrive in order through 'data' (flowing mode); an on_record hook would cost an info object per row.
  parser.on('data', (record: string[]) => sink.accept(record));
  parser.on('error', (error) => {
    parseError ??= error;
  });
  const ended = new Promise<void>((resolve) => {
    parser.on('end', resolve);
    parser.on('error', () => resolve());
  });

  const failed = (): boolean => parseError !== null || sink.fatal !== null;
  const slicer = new TimeSlicer(yieldNow, 1);
  outer: for (let c = 0; c < chunks.length; c++) {
    const chunk = chunks[c] ?? '';
    // Drop our reference once fed: a 50 MB file's text need not outlive its parsing (less for the GC to mark).
    chunks[c] = '';
    for (let start = 0; start < chunk.length; ) {
      let end = Math.min(start + PIECE_CHARS, chunk.length);
      // Never split a surrogate pair between two writes.
      const last = chunk.charCodeAt(end - 1);
      if (end < chunk.length && last >= 0xd800 && last <= 0xdbff) end--;
      parser.write(chunk.slice(start, end));
      start = end;
      if (slicer.due()) await slicer.pause();
      if (failed()) break outer;
    }
  }
  if (!failed()) parser.end();
  else parser.destroy();
  if (!failed()) await ended;
  if (sink.fatal) throw sink.fatal;
  if (parseError) throw parserErrorToFileError(parseError, sink.rowsSeen + 1);
}

/** Exact totals per currency, sorted by currency code. */
export function totalsOf(rows: readonly CsvValidRow[]): CsvCurrencyTotal[] {
  const totals = new Map<string, CsvCurrencyTotal>();
  for (const { payout } of rows) {
    const total = totals.get(payout.currencyCode) ?? { currencyCode: payout.currencyCode, amountMinor: 0, count: 0 };
    total.amountMinor += payout.amountMinor;
    total.count++;
    if (!Number.isSafeInteger(total.amountMinor)) {
      throw new CsvFileError('FILE_TOO_LARGE', `The ${payout.currencyCode} total of this file is too large to add up exactly; split the file.`);
    }
    totals.set(payout.currencyCode, total);
  }
  return [...totals.values()].sort((a, b) => a.currencyCode.localeCompare(b.currencyCode));
}

/** Imports a payout batch CSV from its raw bytes. Throws CsvFileError only when the file as a whole is unusable. */
export async function importPayoutCsv(bytes: Uint8Array, options: CsvImportOptions = {}): Promise<CsvImportResult> {
  const checked = optionsSchema.safeParse(options);
  if (!checked.success) throw new TypeError(`invalid CSV import options: ${checked.error.message}`);
  if (bytes.length > MAX_CSV_BYTES) throw fileTooLarge(bytes.length);
  const sha256 = await sha256Hex(bytes);
  await yieldNow(); // each stage slices its own work; a turn between stages keeps two slices from adding up
  const decoded = await decodeCsvBytes(bytes, yieldNow);
  await yieldNow();
  if (await isBlank(decoded.chunks)) {
    throw new CsvFileError('EMPTY_FILE', 'The file is empty. Download the template, fill in one row per payout and import it.');
  }
  const dialect = detectDialect(decoded.chunks[0] ?? '');
  const decimalSeparator =
    options.decimalComma === true ? ',' : options.decimalComma === false ? '.' : dialect.delimiter === ';' ? ',' : '.';
  const sink = new RecordSink(dialect.delimiter, options, decimalSeparator, dialect.sepLine);
  await parseInto(decoded.chunks, sink, dialect.delimiter);

  if (!sink.header) {
    throw new CsvFileError('EMPTY_FILE', 'The file holds only blank lines. Download the template, fill in one row per payout and import it.');
  }
  if (sink.dataRows === 0) {
    throw new CsvFileError('NO_ROWS', 'The file has a header row but no payout rows below it; add one row per payout.', null);
  }

  let rows = sink.rows;
  let errors = sink.errors;
  let warnings = sink.warnings;
  let invalid = sink.invalidRows;
  if (options.journal) {
    const journalOutcome = await checkAgainstJournal(rows, options.journal, (f) => sink.columnOf(f), yieldNow, { repeatWindowDays: options.repeatWindowDays ?? DEFAULT_REPEAT_WINDOW_DAYS, fileSha256: sha256 });
    rows = journalOutcome.rows;
    invalid += journalOutcome.errors.length;
    // concat, not push(...list): a spread of 100,000 issues can overflow the call stack.
    errors = errors.concat(journalOutcome.errors);
    warnings = warnings.concat(journalOutcome.warnings);
    if (await options.journal.batchFileSubmitted(sha256)) {
      warnings.unshift({
        rowNumber: 0,
        column: null,
        code: 'FILE_ALREADY_SUBMITTED',
        message: `This exact file (SHA-256 ${sha256.slice(0, 12)}…) was submitted before; submitting it again pays every row a second time. Confirm only if that is intended.`,
      });
    }
  }
  const byRow = (a: CsvIssue, b: CsvIssue): number => a.rowNumber - b.rowNumber;
  errors.sort(byRow);
  warnings.sort(byRow);

  return {
    fileName: options.fileName ?? 'payouts.csv',
    sha256,
    encoding: decoded.encoding,
    delimiter: dialect.delimiter,
    decimalSeparator,
    rows,
    errors,
    warnings,
    totals: totalsOf(rows),
    counts: { rows: sink.dataRows, valid: rows.length, invalid, warnings: warnings.length },
    unknownColumns: sink.header.unknownColumns,
  };
}

/** Reads and imports a file; the size limit is checked before the file is read. */
export async function importPayoutCsvFile(path: string, options: CsvImportOptions = {}): Promise<CsvImportResult> {
  let bytes: Uint8Array;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new CsvFileError('READ_FAILED', `${resolve(path)} is not a file.`);
    if (info.size > MAX_CSV_BYTES) throw fileTooLarge(info.size);
    bytes = await readFile(path);
  } catch (error) {
    if (error instanceof CsvFileError) throw error;
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
    // The absolute path: a relative one does not say which folder was searched.
    const shown = resolve(path);
    throw new CsvFileError('READ_FAILED', code === 'ENOENT' ? `File not found: ${shown}` : `Cannot read ${shown} (${code || 'unknown error'}).`);
  }
  return importPayoutCsv(bytes, { fileName: basename(path), ...options });
}
