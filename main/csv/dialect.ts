// Which delimiter the file uses: the one of "," ";" tab that occurs most often in the header line, counted
// outside quotes (a header like "Amount (EUR; net)" must not decide). Excel's "sep=;" first line wins.
import type { CsvDelimiter } from './types';

export interface Dialect {
  delimiter: CsvDelimiter;
  /** The file starts with Excel's "sep=X" hint line (not shown by Excel as a row, so not counted as one). */
  sepLine: boolean;
}

const SEP_LINE = /^sep=([,;\t])\r?(?:\n|$)/i;

export function detectDialect(text: string): Dialect {
  const sep = SEP_LINE.exec(text);
  if (sep) return { delimiter: sep[1] as CsvDelimiter, sepLine: true };

  const counts: Record<CsvDelimiter, number> = { ',': 0, ';': 0, '\t': 0 };
  let i = 0;
  while (i < text.length && (text[i] === '\r' || text[i] === '\n')) i++;
  let quoted = false;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted; // a doubled quote flips twice, which is what we want
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && (ch === ',' || ch === ';' || ch === '\t')) counts[ch]++;
  }
  // Ties go to the earlier entry: comma, then semicolon, then tab.
  let best: CsvDelimiter = ',';
  for (const candidate of [';', '\t'] as const) if (counts[candidate] > counts[best]) best = candidate;
  return { delimiter: best, sepLine: false };
}
