// Which reader a batch file goes to, decided by its content rather than its name: a file whose first character
// (after a byte order mark and white space) is "<" is XML and goes to the pain.001 reader, which refuses any XML
// that is not a pain.001; anything else is a CSV. Both give the same result shape (PayoutFileImport).
import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { importPayoutCsv } from '../csv/import';
import { CsvFileError, MAX_CSV_BYTES, type CsvImportOptions, type CsvImportResult } from '../csv/types';
import type { Pain001ImportResult } from './pain001';
import type { PaymentRunRefLookup } from './run-refs';
import type { Iso20022Settings } from './settings';

export type PayoutFileResult = CsvImportResult | Pain001ImportResult;

export type PayoutFileOptions = CsvImportOptions & {
  iso20022?: Iso20022Settings | undefined;
  /** pain.001 only: runs imported before, whose MsgId or EndToEndIds a new run may not repeat. */
  paymentRuns?: PaymentRunRefLookup | undefined;
};

export function isPain001Result(result: PayoutFileResult): result is Pain001ImportResult {
  return 'iso20022' in result;
}

/** How far into the file the first character is looked for. */
const SNIFF_BYTES = 1024;

/** True when the first character, past a byte order mark (UTF-8 or UTF-16) and white space, is "<". */
export function looksLikeXml(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) {
    const c = bytes[i];
    // BOM bytes, the zero half of a UTF-16 code unit, and white space.
    if (c === 0xef || c === 0xbb || c === 0xbf || c === 0xff || c === 0xfe || c === 0x00 || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === 0x3c;
  }
  return false;
}

/** Imports a batch file from its bytes: a pain.001 (XML) or a CSV. */
export async function importPayoutFile(bytes: Uint8Array, options: PayoutFileOptions = {}): Promise<PayoutFileResult> {
  const { iso20022, decimalComma, paymentRuns, ...common } = options;
  if (looksLikeXml(bytes)) {
    // Loaded when an XML file comes: a CSV-only desk (and the CLI's start) never reads the XML parser.
    const { importPain001 } = await import('./pain001');
    return importPain001(bytes, { ...common, iso20022, paymentRuns });
  }
  return importPayoutCsv(bytes, { ...common, ...(decimalComma !== undefined ? { decimalComma } : {}) });
}

/** Reads a file (its size checked before it is read) and imports it as importPayoutFile does. */
export async function importPayoutFileAt(path: string, options: PayoutFileOptions = {}): Promise<PayoutFileResult> {
  let bytes: Uint8Array;
  const shown = resolve(path);
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new CsvFileError('READ_FAILED', `${shown} is not a file.`);
    if (info.size > MAX_CSV_BYTES) {
      throw new CsvFileError('FILE_TOO_LARGE', `The file is ${(Math.ceil((info.size / 1024 / 1024) * 10) / 10).toFixed(1)} MB; the limit is ${MAX_CSV_BYTES / 1024 / 1024} MB per file. Split it into smaller files.`);
    }
    bytes = await readFile(path);
  } catch (error) {
    if (error instanceof CsvFileError) throw error;
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
    throw new CsvFileError('READ_FAILED', code === 'ENOENT' ? `File not found: ${shown}` : `Cannot read ${shown} (${code || 'unknown error'}).`);
  }
  return importPayoutFile(bytes, { fileName: basename(path), ...options });
}
