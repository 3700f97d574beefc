// When a recurring payout falls due (issue 27, recurring payouts): a rule from a small closed set, not RFC 5545.
//   monthly <day>              on day 1–31 of each month; a month without that day pays on its last day (the 31st
//                              in February is the 28th or 29th), so rent asked for "the 31st" is never silently dropped
//                              (RRULE's BYMONTHDAY=31 skips those months)
//   monthly last-business-day  the last Monday–Friday of each month (no bank holidays: the desk knows none)
//   weekly <mon…sun>           each week on that weekday
// A closed set because a person reads and types the rule (`recurring add --rule "monthly 25"`), every rule has one
// plain sentence, and each month-end case has one answer written here; RRULE's expressiveness would need an editor.
// Dates are calendar dates (yyyy-MM-dd) of the template's zone; an occurrence releases at the template's time of day
// in that zone (executionOf), moved to the first minute that exists on a spring-forward night.
import { DateTime } from 'luxon';
import { executionOf, ExecutionError, type Execution } from './execution';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export type RecurrenceRule =
  | { kind: 'monthly-day'; day: number }
  | { kind: 'last-business-day' }
  | { kind: 'weekly'; weekday: Weekday };

/** How a series ends: after a number of occurrences (skipped ones count), on a last date (inclusive), or never. */
export type RecurrenceEnd = { count: number } | { until: string } | null;

export interface Recurrence {
  rule: RecurrenceRule;
  /** The first date an occurrence may fall on (yyyy-MM-dd). */
  start: string;
  end: RecurrenceEnd;
  /** HH:mm in `zone`. */
  timeOfDay: string;
  zone: string;
}

export class RecurrenceError extends Error {
  constructor(readonly code: 'BAD_RULE' | 'BAD_DATE' | 'BAD_TIME' | 'BAD_END', message: string) {
    super(message);
  }
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const TIME_RE = /^([01]\d|2[0-3]):[0-5]\d$/;
const WEEKDAY_NAMES: Record<Weekday, string> = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };

/** "monthly 25", "monthly last-business-day", "weekly fri" (case and extra spaces ignored; "monthly 25th" too). */
export function parseRule(text: string): RecurrenceRule {
  const words = text.trim().toLowerCase().split(/\s+/);
  const bad = () => new RecurrenceError('BAD_RULE', `"${text}" is not a rule: write "monthly 25", "monthly last-business-day" or "weekly fri"`);
  if (words.length !== 2) throw bad();
  const [every, on] = words as [string, string];
  if (every === 'monthly') {
    if (on === 'last-business-day') return { kind: 'last-business-day' };
    const m = /^(\d{1,2})(?:st|nd|rd|th)?$/.exec(on);
    const day = m ? Number(m[1]) : NaN;
    if (!(day >= 1 && day <= 31)) throw new RecurrenceError('BAD_RULE', `"${on}" is not a day of the month (1–31, or last-business-day)`);
    return { kind: 'monthly-day', day };
  }
  if (every === 'weekly') {
    const weekday = WEEKDAYS.find((d) => on.startsWith(d) && WEEKDAY_NAMES[d].toLowerCase().startsWith(on));
    if (!weekday) throw new RecurrenceError('BAD_RULE', `"${on}" is not a weekday (mon, tue, wed, thu, fri, sat, sun)`);
    return { kind: 'weekly', weekday };
  }
  throw bad();
}

/** The rule as stored and typed: parseRule(ruleText(r)) is r. */
export function ruleText(rule: RecurrenceRule): string {
  switch (rule.kind) {
    case 'monthly-day': return `monthly ${rule.day}`;
    case 'last-business-day': return 'monthly last-business-day';
    case 'weekly': return `weekly ${rule.weekday}`;
  }
}

const ordinal = (n: number): string => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
};

/** "monthly on the 31st (the month's last day when shorter)", "monthly on the last business day (Mon–Fri)", "every Friday". */
export function describeRule(rule: RecurrenceRule): string {
  switch (rule.kind) {
    case 'monthly-day': return `monthly on the ${ordinal(rule.day)}${rule.day > 28 ? " (the month's last day when shorter)" : ''}`;
    case 'last-business-day': return 'monthly on the last business day (Mon–Fri)';
    case 'weekly': return `every ${WEEKDAY_NAMES[rule.weekday]}`;
  }
}

function dateOf(text: string, what: string): DateTime {
  const d = DATE_RE.test(text) ? DateTime.fromISO(text, { zone: 'UTC' }) : null;
  if (!d?.isValid) throw new RecurrenceError('BAD_DATE', `${what} "${text}" is not a date (yyyy-MM-dd)`);
  return d;
}

const iso = (d: DateTime): string => d.toFormat('yyyy-MM-dd');

/** Checks a recurrence's parts; throws RecurrenceError for the first that is wrong. */
export function checkRecurrence(r: Recurrence): void {
  dateOf(r.start, 'the start');
  if (!TIME_RE.test(r.timeOfDay)) throw new RecurrenceError('BAD_TIME', `"${r.timeOfDay}" is not a time of day (HH:mm, e.g. 08:00)`);
  if (r.end && 'count' in r.end && !(Number.isInteger(r.end.count) && r.end.count >= 1)) throw new RecurrenceError('BAD_END', 'the number of payments must be 1 or more');
  if (r.end && 'until' in r.end && dateOf(r.end.until, 'the end') < dateOf(r.start, 'the start')) throw new RecurrenceError('BAD_END', `the end ${r.end.until} is before the start ${r.start}`);
  try {
    executionOf(`${r.start}T${r.timeOfDay}`, r.zone);
  } catch (error) {
    // A skipped time on the start day is moved like any other (releaseOf); only an unknown zone is wrong here.
    if (error instanceof ExecutionError && error.code === 'BAD_ZONE') throw new RecurrenceError('BAD_TIME', error.message);
    if (!(error instanceof ExecutionError && error.code === 'SKIPPED_TIME')) throw error;
  }
}

/** The rule's date in the month of `month` (its first day), or in the week starting at `month` for a weekly rule. */
function dateInMonth(rule: Exclude<RecurrenceRule, { kind: 'weekly' }>, month: DateTime): DateTime {
  const last = month.endOf('month').startOf('day');
  if (rule.kind === 'monthly-day') return month.set({ day: Math.min(rule.day, last.day) });
  // Luxon weekdays: 1 Monday … 7 Sunday.
  return last.weekday === 6 ? last.minus({ days: 1 }) : last.weekday === 7 ? last.minus({ days: 2 }) : last;
}

/**
 * The rule's dates from `start` on, in order, as far as its end allows: the series itself, each date once. `stopAfter`
 * (yyyy-MM-dd, inclusive) ends the walk of an endless rule.
 */
export function* seriesDates(r: Pick<Recurrence, 'rule' | 'start' | 'end'>, stopAfter: string): Generator<string> {
  const start = dateOf(r.start, 'the start');
  const stop = dateOf(stopAfter, 'the last date');
  const until = r.end && 'until' in r.end ? dateOf(r.end.until, 'the end') : null;
  const count = r.end && 'count' in r.end ? r.end.count : Infinity;
  const rule = r.rule;
  let n = 0;
  let d: DateTime;
  if (rule.kind === 'weekly') {
    const wanted = WEEKDAYS.indexOf(rule.weekday) + 1;
    d = start.plus({ days: (wanted - start.weekday + 7) % 7 });
  } else {
    d = dateInMonth(rule, start.startOf('month'));
    if (d < start) d = dateInMonth(rule, start.startOf('month').plus({ months: 1 }));
  }
  while (n < count && d <= stop && (!until || d <= until)) {
    yield iso(d);
    n += 1;
    d = rule.kind === 'weekly' ? d.plus({ weeks: 1 }) : dateInMonth(rule, d.startOf('month').plus({ months: 1 }));
  }
}

/** The series' dates from `from` to `to` (inclusive). */
export function occurrenceDates(r: Pick<Recurrence, 'rule' | 'start' | 'end'>, from: string, to: string): string[] {
  return [...seriesDates(r, to)].filter((d) => d >= from);
}

/** Whether `date` is one of the series' dates. */
export function isOccurrence(r: Pick<Recurrence, 'rule' | 'start' | 'end'>, date: string): boolean {
  dateOf(date, 'the date');
  for (const d of seriesDates(r, date)) if (d === date) return true;
  return false;
}

/** The first date of the series on or after `from`, or null when it has ended by then. */
export function nextDate(r: Pick<Recurrence, 'rule' | 'start' | 'end'>, from: string): string | null {
  // Far enough for any rule: a weekly one meets its weekday within 7 days, a monthly one within 31.
  const horizon = iso(dateOf(from, 'the date').plus({ days: 40 }));
  return occurrenceDates(r, from, horizon)[0] ?? null;
}

/**
 * When the occurrence of `date` releases: the time of day in the zone. On a spring-forward night a time the clocks
 * skip moves to the first minute that exists (02:30 in Berlin on the last Sunday of March → 03:00); on a fall-back
 * night a time shown twice is the first (executionOf).
 */
export function releaseOf(r: Pick<Recurrence, 'timeOfDay' | 'zone'>, date: string): Execution {
  try {
    return executionOf(`${date}T${r.timeOfDay}`, r.zone);
  } catch (error) {
    if (!(error instanceof ExecutionError && error.code === 'SKIPPED_TIME')) throw error;
  }
  let t = DateTime.fromISO(`${date}T${r.timeOfDay}`, { zone: 'UTC' });
  // Gaps are at most a few hours (an hour in most zones): walk forward a minute at a time to the first that exists.
  for (let i = 0; i < 24 * 60; i++) {
    t = t.plus({ minutes: 1 });
    try {
      return executionOf(t.toFormat("yyyy-MM-dd'T'HH:mm"), r.zone);
    } catch (error) {
      if (!(error instanceof ExecutionError && error.code === 'SKIPPED_TIME')) throw error;
    }
  }
  throw new RecurrenceError('BAD_TIME', `${date} ${r.timeOfDay} has no time that exists in ${r.zone}`);
}

/** The calendar date (yyyy-MM-dd) of an instant in the zone, and `days` later. */
export function dateIn(at: number, zone: string, days = 0): string {
  return iso(DateTime.fromMillis(at, { zone }).plus({ days }));
}
