// The funding forecast: what the scheduled runs still to be released take out of each currency, day by day (in the
// profile's zone), against the available balance last read. A day whose running total passes the balance is short by
// the difference ("EUR short by 12,000.00 on the 28th"). Pure: the desk gives the schedules' totals and the balances.

export interface ScheduledTotal {
  at: number;
  currencyCode: string;
  amountMinor: number;
  count: number;
}

export interface ForecastLine {
  /** yyyy-MM-dd in the zone asked for. */
  date: string;
  currencyCode: string;
  /** Released that day. */
  dueMinor: number;
  count: number;
  /** Released from now to the end of that day. */
  cumulativeMinor: number;
  /** The balance last read; null when none is known (nothing can be said short). */
  availableMinor: number | null;
  /** How much is missing by the end of that day; 0 when covered or unknown. */
  shortByMinor: number;
}

/**
 * One line per currency and day with something due, in date then currency order. `dateOf` puts an instant on its
 * day in the profile's zone (schedules/execution.ts localDate).
 */
export function fundingForecast(totals: readonly ScheduledTotal[], available: ReadonlyMap<string, number>, dateOf: (at: number) => string): ForecastLine[] {
  const byDay = new Map<string, { date: string; currencyCode: string; dueMinor: number; count: number }>();
  for (const t of totals) {
    const date = dateOf(t.at);
    const key = `${date}\u0000${t.currencyCode}`;
    const day = byDay.get(key) ?? { date, currencyCode: t.currencyCode, dueMinor: 0, count: 0 };
    day.dueMinor += t.amountMinor;
    day.count += t.count;
    byDay.set(key, day);
  }
  const days = [...byDay.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.currencyCode < b.currencyCode ? -1 : a.currencyCode > b.currencyCode ? 1 : 0));
  const running = new Map<string, number>();
  return days.map((d) => {
    const cumulativeMinor = (running.get(d.currencyCode) ?? 0) + d.dueMinor;
    running.set(d.currencyCode, cumulativeMinor);
    const availableMinor = available.get(d.currencyCode) ?? null;
    return { ...d, cumulativeMinor, availableMinor, shortByMinor: availableMinor === null ? 0 : Math.max(0, cumulativeMinor - availableMinor) };
  });
}
