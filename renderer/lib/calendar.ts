// The calendar's arithmetic on the screen side: a month as weeks of days (Monday first), the day an instant falls on
// in the profile's zone, and the shortfall lines of the funding forecast. Days are plain 'yyyy-MM-dd' strings; a date
// is walked with UTC Date objects, which have no daylight-saving days, so a month never gains or loses a day.
import type { ForecastLineView, ScheduleView } from '../../contract/api';
import { fractionDigitsOf } from './format';

/** 'yyyy-MM' */
export type Month = string;

const pad = (n: number) => String(n).padStart(2, '0');
const ymd = (d: Date) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;

const dayFormats = new Map<string, Intl.DateTimeFormat>();
/** The wall-clock date (yyyy-MM-dd) of an instant in an IANA zone. */
export function dateInZone(at: string | number | Date, zone: string): string {
  let f = dayFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(zone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(at)).map((p) => [p.type, p.value]));
  return `${parts['year']}-${parts['month']}-${parts['day']}`;
}

export function monthOf(date: string): Month {
  return date.slice(0, 7);
}

export function addMonths(month: Month, n: number): Month {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 + n, 1));
  return ymd(d).slice(0, 7);
}

/** The weeks a month view shows: Monday to Sunday, from the week of the 1st to the week of the last day. */
export function monthWeeks(month: Month): string[][] {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const first = new Date(Date.UTC(y, m - 1, 1));
  // getUTCDay: 0 is Sunday; Monday first means Sunday is the 7th day of its week.
  const start = new Date(first);
  start.setUTCDate(1 - ((first.getUTCDay() + 6) % 7));
  const last = new Date(Date.UTC(y, m, 0));
  const weeks: string[][] = [];
  const d = new Date(start);
  while (d <= last) {
    const week: string[] = [];
    for (let i = 0; i < 7; i++) {
      week.push(ymd(d));
      d.setUTCDate(d.getUTCDate() + 1);
    }
    weeks.push(week);
  }
  return weeks;
}

/**
 * The instants to ask the desk for a month's view: from a day before its first shown day to a day after its last (UTC),
 * wide enough for any zone's day; the screen then places each run on its day in the zone.
 */
export function monthRange(month: Month): { from: string; to: string } {
  const weeks = monthWeeks(month);
  const first = weeks[0]?.[0] ?? `${month}-01`;
  const last = weeks[weeks.length - 1]?.[6] ?? `${month}-28`;
  const from = new Date(`${first}T00:00:00Z`);
  from.setUTCDate(from.getUTCDate() - 1);
  const to = new Date(`${last}T00:00:00Z`);
  to.setUTCDate(to.getUTCDate() + 2);
  return { from: from.toISOString(), to: to.toISOString() };
}

/** The runs of each day (yyyy-MM-dd in `zone`), in time order. */
export function runsByDay(items: readonly ScheduleView[], zone: string): Map<string, ScheduleView[]> {
  const days = new Map<string, ScheduleView[]>();
  for (const item of [...items].sort((a, b) => Date.parse(a.executeAt) - Date.parse(b.executeAt))) {
    const day = dateInZone(item.executeAt, zone);
    const list = days.get(day) ?? [];
    list.push(item);
    days.set(day, list);
  }
  return days;
}

const plainFormats = new Map<number, Intl.NumberFormat>();
/** "12000.5" → "12,000.5" in the reader's digits, exactly as many decimals as the string has (never a float). */
export function plainAmount(amount: string): string {
  const digits = fractionDigitsOf(amount);
  if (!/^-?\d+(\.\d+)?$/.test(amount) || digits > 100) return amount;
  let f = plainFormats.get(digits);
  if (!f) {
    f = new Intl.NumberFormat(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits });
    plainFormats.set(digits, f);
  }
  return f.format(amount as Intl.StringNumericLiteral);
}

/** "EUR short by 12,000.00 on 2026-12-28": the first day each currency falls short, in the forecast's order. */
export function shortfallLines(forecast: readonly ForecastLineView[]): { currencyCode: string; date: string; text: string }[] {
  const seen = new Set<string>();
  const out: { currencyCode: string; date: string; text: string }[] = [];
  for (const line of forecast) {
    if (!line.shortBy || seen.has(line.currencyCode)) continue;
    seen.add(line.currencyCode);
    out.push({ currencyCode: line.currencyCode, date: line.date, text: `${line.currencyCode} short by ${plainAmount(line.shortBy.amount)} on ${line.date}` });
  }
  return out;
}

/** "Scheduled", "Late"…: the word a person reads for a schedule's state. */
export const SCHEDULE_STATE_WORDS = { SCHEDULED: 'Scheduled', LATE: 'Late', RELEASED: 'Released', CANCELLED: 'Cancelled' } as const;

/** Cancelled is outlined: grey text on the surface reads where white on grey does not (dark theme). */
export function scheduleStateVariant(state: ScheduleView['state']): 'flat' | 'outlined' {
  return state === 'CANCELLED' ? 'outlined' : 'flat';
}

export function scheduleStateColor(state: ScheduleView['state']): string {
  // Theme colours whose text reaches 4.5:1 (plugins/vuetify.ts): Vuetify's own info blue does not under white.
  return state === 'LATE' ? 'warning' : state === 'RELEASED' ? 'success' : state === 'CANCELLED' ? 'discarded' : 'primary';
}

/** A batch's state reason "scheduled: released on 2026-12-24 09:00 Europe/Berlin" as "Releases on 2026-12-24 09:00 Europe/Berlin". */
export function releasesOnText(stateReason: string | null): string | null {
  const m = stateReason?.match(/^scheduled: released on (.+)$/);
  return m ? `Releases on ${m[1]}` : null;
}
