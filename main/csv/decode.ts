// Bytes → text. Spreadsheets write CSV in a handful of encodings; we recognise them from the BOM,
// try strict UTF-8 next, and fall back to Windows-1252 (what Excel's plain "CSV" writes on Western
// Windows). Anything that still looks binary is refused with a file error rather than guessed at.
import { TimeSlicer } from './time-slice';
import { CsvFileError, type CsvEncoding } from './types';

/** Bytes decoded (and checked) at a time, a millisecond or two of work; the event loop gets a turn every few pieces. */
const DECODE_CHUNK_BYTES = 256 * 1024;

export interface DecodedCsv {
  encoding: CsvEncoding;
  /** The text in pieces (so a caller can feed a streaming parser and yield between pieces), BOM removed. */
  chunks: string[];
}

// C0 controls other than tab, LF, CR; DEL. A text CSV never holds these.
// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const CONTROL_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
// Node 20's TextDecoder('windows-1252') is really ISO-8859-1 (0x80 comes out as U+0080, not "€"), so the
// 0x80-0x9F range is mapped here. The five bytes Windows-1252 leaves undefined mean the file is not text.
const WINDOWS_1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const UNDEFINED_1252 = /[\u0081\u008D\u008F\u0090\u009D]/;
const C1_RANGE = /[\u0080-\u009f]/g;

function mapWindows1252(text: string): string {
  return text.replace(C1_RANGE, (ch) => WINDOWS_1252_HIGH[ch.charCodeAt(0) - 0x80] ?? ch);
}

interface Candidate {
  encoding: CsvEncoding;
  label: 'utf-8' | 'utf-16le' | 'utf-16be' | 'latin1';
  skip: number;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

function refuseKnownBinary(bytes: Uint8Array): void {
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    throw new CsvFileError(
      'BINARY_FILE',
      'This is an Excel workbook (.xlsx) or another zip file, not a CSV file. In the spreadsheet use File > Save As > "CSV UTF-8 (Comma delimited)" and import that file.',
    );
  }
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0])) {
    throw new CsvFileError(
      'BINARY_FILE',
      'This is an old Excel workbook (.xls), not a CSV file. In the spreadsheet use File > Save As > "CSV UTF-8 (Comma delimited)" and import that file.',
    );
  }
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46])) {
    throw new CsvFileError('BINARY_FILE', 'This is a PDF document, not a CSV file. Export the payouts from your spreadsheet or ERP as CSV.');
  }
}

/** UTF-16 without a BOM shows as ASCII interleaved with NUL bytes; recognise it before calling it binary. */
function sniffBomlessUtf16(bytes: Uint8Array): Candidate | null {
  const n = Math.min(bytes.length - (bytes.length % 2), 1024);
  if (n < 4) return null;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZero++;
    if (bytes[i + 1] === 0) oddZero++;
  }
  const pairs = n / 2;
  if (oddZero >= pairs * 0.9 && evenZero === 0) return { encoding: 'utf-16le', label: 'utf-16le', skip: 0 };
  if (evenZero >= pairs * 0.9 && oddZero === 0) return { encoding: 'utf-16be', label: 'utf-16be', skip: 0 };
  return null;
}

function pickCandidate(bytes: Uint8Array): Candidate {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return { encoding: 'utf-8-bom', label: 'utf-8', skip: 3 };
  if (startsWith(bytes, [0xff, 0xfe])) return { encoding: 'utf-16le', label: 'utf-16le', skip: 2 };
  if (startsWith(bytes, [0xfe, 0xff])) return { encoding: 'utf-16be', label: 'utf-16be', skip: 2 };
  return sniffBomlessUtf16(bytes) ?? { encoding: 'utf-8', label: 'utf-8', skip: 0 };
}

function binaryError(offsetChars: number, encoding: CsvEncoding): CsvFileError {
  return new CsvFileError(
    'BINARY_FILE',
    `The file contains control characters (near character ${offsetChars + 1}, read as ${encoding}), so it is not a CSV text file. ` +
      'Save it from the spreadsheet as "CSV UTF-8 (Comma delimited)" and import that file.',
  );
}

async function decodeWith(
  bytes: Uint8Array,
  candidate: Candidate,
  yieldNow: () => Promise<void>,
): Promise<string[]> {
  const decoder = new TextDecoder(candidate.label, { fatal: true, ignoreBOM: true });
  const slicer = new TimeSlicer(yieldNow, 1);
  const chunks: string[] = [];
  let seen = 0;
  for (let start = candidate.skip; start < bytes.length; start += DECODE_CHUNK_BYTES) {
    const end = Math.min(start + DECODE_CHUNK_BYTES, bytes.length);
    let text = decoder.decode(bytes.subarray(start, end), { stream: end < bytes.length });
    // An old DOS end-of-file marker (Ctrl-Z) at the very end is harmless.
    if (end === bytes.length && text.endsWith('\u001a')) text = text.slice(0, -1);
    const bad = text.search(CONTROL_CHAR);
    if (bad >= 0) throw binaryError(seen + bad, candidate.encoding);
    if (candidate.encoding === 'windows-1252') {
      const undefinedByte = text.search(UNDEFINED_1252);
      if (undefinedByte >= 0) throw binaryError(seen + undefinedByte, candidate.encoding);
      text = mapWindows1252(text);
    }
    seen += text.length;
    if (text) chunks.push(text);
    if (slicer.due()) await slicer.pause();
  }
  return chunks;
}

/** Decodes a CSV file's bytes, yielding to the event loop every few milliseconds. Throws CsvFileError for binary or undecodable input. */
export async function decodeCsvBytes(bytes: Uint8Array, yieldNow: () => Promise<void>): Promise<DecodedCsv> {
  refuseKnownBinary(bytes);
  const candidate = pickCandidate(bytes);
  try {
    return { encoding: candidate.encoding, chunks: await decodeWith(bytes, candidate, yieldNow) };
  } catch (error) {
    if (error instanceof CsvFileError) throw error;
    if (candidate.encoding !== 'utf-8') {
      throw new CsvFileError(
        'ENCODING',
        `The file is marked as ${candidate.label.toUpperCase()} (it starts with a byte order mark, or looks like UTF-16) but its bytes are not valid ${candidate.label.toUpperCase()}. Save it again from the spreadsheet as "CSV UTF-8".`,
      );
    }
  }
  // Not UTF-8: every byte sequence decodes as Windows-1252, and the control-character check rejects binary.
  const fallback: Candidate = { encoding: 'windows-1252', label: 'latin1', skip: 0 };
  return { encoding: 'windows-1252', chunks: await decodeWith(bytes, fallback, yieldNow) };
}
