// The release time a batch file asks for: a CSV's `execute_on` column (a date, or a date and time, in the profile's
// zone), or a pain.001's requested execution date (ReqdExctnDt: a date in 001.001.03; <Dt> or <DtTm> in 001.001.09),
// both kept in each row's `extra`. A time that has passed is not refused: the file is sent at once when submitted,
// as a bank executes a past ReqdExctnDt (ERPs write today's date, or one from the day the run was made), and the
// review says so. A batch is released at one time, so a file whose rows ask for different times still ahead (or one
// ahead, and others none or a passed one) is refused with the rows of each.
import { DateTime } from 'luxon';
import type { CsvIssue } from '../csv/types';
import { normaliseHeader } from '../csv/headers';
import { describeExecution, ExecutionError, executionOf, localDate, type Execution } from './execution';

/** The key a pain.001 row keeps its payment group's ReqdExctnDt under (as written: a date, or a date-time). */
export const REQUESTED_EXECUTION_EXTRA = 'ReqdExctnDt';

/** Header names (normalised as headers.ts does) of a CSV column holding a row's release date. */
const EXECUTE_ON_HEADERS = new Set(['executeon', 'executiondate', 'requestedexecutiondate', 'reqdexctndt']);

export interface DatedRow {
  rowNumber: number;
  extra: Readonly<Record<string, string>>;
}

/** What a file's dates mean for its batch. */
export interface FileDates {
  /** The one release time, still ahead, its rows ask for; null when they ask for none, a passed one, or several. */
  execution: Execution | null;
  /** True when its rows ask only for times that have passed: the batch is sent at once when submitted. */
  passed: boolean;
  /** A sentence for the review: "The file asks for …: the batch releases then" or "… has passed …"; null for none. */
  note: string | null;
  /** File-level problems (rowNumber 0): a date that cannot be read, rows asking for different times. */
  errors: CsvIssue[];
}

const dateColumns = new Map<string, boolean>();

/** Whether a CSV header (as kept in `extra`) names a release date column; remembered, as every row asks again. */
export function isDateColumn(column: string): boolean {
  let known = dateColumns.get(column);
  if (known === undefined) {
    // A repeated header is kept as "execute_on (2)": it counts too, after the first.
    known = column === REQUESTED_EXECUTION_EXTRA || EXECUTE_ON_HEADERS.has(normaliseHeader(column.replace(/ \(\d+\)$/, '')));
    if (dateColumns.size < 1000) dateColumns.set(column, known);
  }
  return known;
}

/** The date text a row carries (trimmed), or null when it has none. */
export function rowDateText(extra: Readonly<Record<string, string>>): string | null {
  for (const column in extra) {
    if (isDateColumn(column)) return extra[column]!.trim() || null;
  }
  return null;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::(\d{2})(?:\.(\d+))?)?$/;
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A file's date text as the wall time executionOf takes ("2026-12-24" or "2026-12-24T09:00"), in `zone`. A time with
 * an offset (a DtTm may carry one) is that instant's wall time in `zone`. Seconds round up to the next minute: a
 * release never leaves before the time asked. Null when the text is no such date.
 */
export function wallTimeOf(text: string, zone: string): string | null {
  const t = text.trim();
  if (DATE.test(t)) return t;
  const local = LOCAL_TIME.exec(t);
  if (local) {
    const late = Number(local[3] ?? '0') > 0 || /[1-9]/.test(local[4] ?? '');
    if (!late) return `${local[1]}T${local[2]}`;
    const dt = DateTime.fromISO(`${local[1]}T${local[2]}`, { zone });
    return dt.isValid ? dt.plus({ minutes: 1 }).toFormat("yyyy-MM-dd'T'HH:mm") : null;
  }
  if (WITH_OFFSET.test(t)) {
    const instant = DateTime.fromISO(t, { setZone: true });
    if (!instant.isValid) return null;
    const inZone = instant.setZone(zone);
    const up = inZone.second > 0 || inZone.millisecond > 0 ? inZone.startOf('minute').plus({ minutes: 1 }) : inZone;
    return up.toFormat("yyyy-MM-dd'T'HH:mm");
  }
  return null;
}

/** "rows 1-3, 7" (at most a few ranges, then "and 12 more"): the rows of one group, short. */
export function rowList(noun: string, rows: readonly number[]): string {
  const sorted = [...rows].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    ranges.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  const shown = ranges.slice(0, 6);
  const more = ranges.length > shown.length ? `, and ${ranges.length - shown.length} more ranges` : '';
  return `${sorted.length === 1 ? noun : `${noun}s`} ${shown.join(', ')}${more}`;
}

function readDate(text: string, zone: string): { local: string | null; execution: Execution | null; why: string } {
  const local = wallTimeOf(text, zone);
  if (local !== null) {
    try {
      return { local, execution: executionOf(local, zone), why: '' };
    } catch (error) {
      if (!(error instanceof ExecutionError)) throw error;
      return { local, execution: null, why: error.message };
    }
  }
  const why = `"${text}" is not a date: write 2026-12-24, or 2026-12-24T09:00 for a time of day (in ${zone}); a spreadsheet may have turned it into its own date format, so format the column as text`;
  return { local: null, execution: null, why };
}

interface Group {
  label: string;
  rows: number[];
  execution: Execution | null;
}

/**
 * The release time of a file's rows, read in `zone` (the profile's). `noun` is what a row is called in the file
 * ("row" of a CSV, "transaction" of a pain.001).
 */
export function fileDatesOf(rows: readonly DatedRow[], zone: string, options: { now?: number; noun?: string } = {}): FileDates {
  const now = options.now ?? Date.now();
  const noun = options.noun ?? 'row';
  // Grouped by the instant: "2026-12-24" and "2026-12-24T08:00" release together. A file asks for a few dates at
  // most, each on many rows: each text is read once, and a row costs a lookup and a push.
  const groups = new Map<number | null, Group>();
  const unreadable = new Map<string, { rows: number[]; why: string }>();
  const byText = new Map<string, { rows: number[] }>();
  const none: Group = { label: '', rows: [], execution: null };
  for (const row of rows) {
    const text = rowDateText(row.extra);
    if (text === null) {
      none.rows.push(row.rowNumber);
      continue;
    }
    let into = byText.get(text);
    if (!into) {
      const { local, execution, why } = readDate(text, zone);
      if (!execution) {
        const bad = { rows: [], why };
        unreadable.set(text, bad);
        into = bad;
      } else {
        const group = groups.get(execution.at) ?? { label: local!.replace('T', ' '), rows: [], execution };
        groups.set(execution.at, group);
        into = group;
      }
      byText.set(text, into);
    }
    into.rows.push(row.rowNumber);
  }
  if (none.rows.length > 0) groups.set(null, none);

  const errors: CsvIssue[] = [];
  for (const bad of unreadable.values()) {
    errors.push({ rowNumber: 0, column: null, code: 'EXECUTE_ON_FORMAT', message: `${rowList(noun, bad.rows)}: ${bad.why}` });
  }
  const dated = [...groups.values()].filter((g) => g.execution !== null);
  if (dated.length === 0 || errors.length > 0) return { execution: null, passed: false, note: null, errors };
  // A time that has passed means "at once", as no date does: only times still ahead can disagree.
  const ahead = dated.filter((g) => g.execution!.at > now);
  const atOnce = [...groups.values()].filter((g) => g.execution === null || g.execution.at <= now);
  if (ahead.length > 1 || (ahead.length === 1 && atOnce.length > 0)) {
    // Biggest group first: the date most of the file asks for leads the sentence.
    const parts = [...groups.values()].sort((a, b) => b.rows.length - a.rows.length || a.rows[0]! - b.rows[0]!).map((g, i) => {
      const what = g.execution === null ? 'no date' : g.execution.at <= now ? `${g.label} (passed: at once)` : g.label;
      const verb = i > 0 ? (g.execution === null ? '' : 'for ') : g.rows.length === 1 ? 'asks for ' : 'ask for ';
      return `${rowList(noun, g.rows)} ${verb}${what}`;
    });
    errors.push({ rowNumber: 0, column: null, code: 'EXECUTE_ON_MIXED', message: `A batch releases at one time: ${parts.join(', ')}; split the file per date` });
    return { execution: null, passed: false, note: null, errors };
  }
  if (ahead.length === 1) {
    const execution = ahead[0]!.execution!;
    return { execution, passed: false, note: `The file asks for ${describeExecution(execution)}: the batch is released then, unless you choose another time`, errors };
  }
  const times = dated.map((g) => g.execution!).sort((a, b) => a.at - b.at);
  const asked = times.length === 1 ? describeExecution(times[0]!) : `${describeExecution(times[0]!)} to ${describeExecution(times[times.length - 1]!)}`;
  const today = times.every((t) => localDate(t.at, zone) === localDate(now, zone));
  return {
    execution: null,
    passed: true,
    note: `The file asks for ${asked}, which ${today ? 'is earlier today' : 'has passed'}: the batch is sent at once when submitted (as a bank executes a past date); choose a time to release it later instead`,
    errors,
  };
}
