// The period of a statement as the user picks it: whole local days. `from` is the local midnight that starts the
// first day, `to` the local midnight that starts the day after the last one (main takes `to` as exclusive), both
// sent as ISO instants. Months are counted with the Date constructor, which rolls over years and DST by itself.

export type StatementPreset = 'this-month' | 'last-month' | 'custom';

export interface StatementPeriod {
  from: string;
  to: string;
}

/** The preset month around `now`: this one, or the one before it. */
export function presetPeriod(preset: Exclude<StatementPreset, 'custom'>, now: Date = new Date()): StatementPeriod {
  const y = now.getFullYear();
  const m = now.getMonth() - (preset === 'last-month' ? 1 : 0);
  return { from: new Date(y, m, 1).toISOString(), to: new Date(y, m + 1, 1).toISOString() };
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A date field's "YYYY-MM-DD" as [year, month index, day], or null when it is not one. */
function parseDay(text: string): [number, number, number] | null {
  const m = DAY.exec(text.trim());
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const date = new Date(y, mo, d);
  // 2025-02-31 would roll over to March: not a day the user could mean.
  return date.getFullYear() === y && date.getMonth() === mo && date.getDate() === d ? [y, mo, d] : null;
}

/** First and last day (inclusive) of a custom period, or why they do not make one. */
export function customPeriod(firstDay: string, lastDay: string): StatementPeriod | { problem: string } {
  const a = parseDay(firstDay);
  const b = parseDay(lastDay);
  if (!a || !b) return { problem: 'Choose the first and the last day of the period.' };
  const from = new Date(a[0], a[1], a[2]);
  const to = new Date(b[0], b[1], b[2] + 1);
  if (!(from < to)) return { problem: 'The first day must not be after the last day.' };
  return { from: from.toISOString(), to: to.toISOString() };
}

/** "YYYY-MM-DD" of a local day, as a date field holds it. */
export function dayText(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** "1 Jun 2025 – 30 Jun 2025": the days a period covers (the last one is the day before `to`). */
export function periodText(p: StatementPeriod): string {
  const from = new Date(p.from);
  const end = new Date(p.to);
  const last = new Date(end.getFullYear(), end.getMonth(), end.getDate() - 1);
  return from.getTime() === last.getTime() ? dayFormat.format(from) : `${dayFormat.format(from)} – ${dayFormat.format(last)}`;
}
