// overview:get — the home screen's picture of the day, from the journal only (works offline): what the gateway
// accepted today and in the last seven days per currency, where those payouts stand, their fees, and the balances.
// Two reads of covering indexes (payments_accepted, payments_pending) and the newest balance snapshots, so it
// opens fast at a million payouts on both back ends (bench/overview.ts).
import type { Money, OverviewCurrency, OverviewView, PayoutActivity, PayoutTally } from '../../contract/api';
import type { DeskJournal } from '../journal/port';
import type { PayoutActivityRow } from '../journal/types';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import type { CurrencyCache } from './currency-cache';
import { exactSum, iso, money, type DecimalsOf } from './convert';

export const OVERVIEW_DAYS = 7;

/** Local midnight of each of the `days` days that end with the one holding `now`, oldest first. */
export function localDayStarts(now: number, days = OVERVIEW_DAYS): number[] {
  const today = new Date(now);
  // The Date constructor with local fields: a day of 23 or 25 hours (a clock change) starts at its own midnight.
  return Array.from({ length: days }, (_, i) => new Date(today.getFullYear(), today.getMonth(), today.getDate() - (days - 1 - i)).getTime());
}

/** Exact integer counters of one currency in one period; turned into money once, at the end. */
interface Counters {
  sent: [number, number];
  succeeded: [number, number];
  failed: [number, number];
  returned: [number, number];
  inFlight: [number, number];
  feesMinor: number;
}

const emptyCounters = (): Counters => ({ sent: [0, 0], succeeded: [0, 0], failed: [0, 0], returned: [0, 0], inFlight: [0, 0], feesMinor: 0 });

/** `part` ÷ `whole` in percent with one decimal, by integer arithmetic (no float drift in what a person reads). */
export function percentText(part: number, whole: number): string | null {
  if (whole === 0) return null;
  const tenths = Math.round((part * 1000) / whole);
  return `${Math.trunc(tenths / 10)}.${tenths % 10}`;
}

function activityOf(c: Counters, code: string, decimalsOf: DecimalsOf): PayoutActivity {
  const tally = ([count, minor]: [number, number]): PayoutTally => ({ count, amount: money(minor, code, decimalsOf) });
  const final = c.succeeded[0] + c.failed[0] + c.returned[0];
  return {
    sent: tally(c.sent),
    succeeded: tally(c.succeeded),
    failed: tally(c.failed),
    returned: tally(c.returned),
    inFlight: tally(c.inFlight),
    fees: money(c.feesMinor, code, decimalsOf),
    failureRatePercent: percentText(c.failed[0], final),
    returnRatePercent: percentText(c.returned[0], c.succeeded[0] + c.returned[0]),
  };
}

/** The Overview from a journal's figures; `now` decides which days are today and the last seven. */
export async function buildOverview(journal: DeskJournal, decimalsOf: DecimalsOf, now: number): Promise<OverviewView> {
  const dayStarts = localDayStarts(now);
  const [rows, latest, pending] = await Promise.all([journal.payoutActivity(dayStarts), journal.latestBalances(), journal.pendingPayoutTotals()]);
  const today = dayStarts.length - 1;
  const byCurrency = new Map<string, { today: Counters; week: Counters; days: [number, number][] }>();
  const entry = (code: string) => {
    let e = byCurrency.get(code);
    if (!e) byCurrency.set(code, (e = { today: emptyCounters(), week: emptyCounters(), days: dayStarts.map((): [number, number] => [0, 0]) }));
    return e;
  };
  const add = (pair: [number, number], row: PayoutActivityRow) => {
    pair[0] += row.count;
    pair[1] = exactSum(pair[1], row.amountMinor, row.currencyCode, "Overview's total");
  };
  for (const row of rows) {
    const e = entry(row.currencyCode);
    const periods = row.day === today ? [e.today, e.week] : [e.week];
    for (const c of periods) {
      add(c.sent, row);
      add(c[row.outcome], row);
    }
    add(e.days[row.day]!, row);
    // A fee in another currency counts with that currency's figures.
    if (row.feeCurrencyCode !== null && row.feeMinor !== 0) {
      const fees = entry(row.feeCurrencyCode);
      for (const c of row.day === today ? [fees.today, fees.week] : [fees.week]) c.feesMinor = exactSum(c.feesMinor, row.feeMinor, row.feeCurrencyCode, "Overview's total");
    }
  }
  for (const b of latest) entry(b.currencyCode);
  for (const p of pending) entry(p.currencyCode);
  const currencies = [...byCurrency.keys()].sort().map((code): OverviewCurrency => {
    const e = byCurrency.get(code)!;
    const snap = latest.find((b) => b.currencyCode === code);
    const available: Money | null = snap ? money(snap.availableMinor, code, decimalsOf) : null;
    return {
      currencyCode: code,
      today: activityOf(e.today, code, decimalsOf),
      lastSevenDays: activityOf(e.week, code, decimalsOf),
      sentByDay: e.days.map(([count, minor]) => ({ count, amount: money(minor, code, decimalsOf) })),
      available,
      pendingOutgoing: money(pending.find((p) => p.currencyCode === code)?.amountMinor ?? 0, code, decimalsOf),
      balanceObservedAt: snap ? iso(snap.observedAt) : null,
    };
  });
  return { dayStarts: dayStarts.map((ms) => iso(ms)), generatedAt: iso(now), currencies };
}

export function overviewService(rt: DeskRuntime, currencies: CurrencyCache, now: () => number = Date.now): ProfileAreaService<'overview'> {
  return {
    async get(profile) {
      return buildOverview(await rt.journalFor(profile.id), currencies.decimalsOf(profile.id), now());
    },
  };
}
