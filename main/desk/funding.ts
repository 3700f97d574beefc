// The funding rule batches and single payouts share: the amount to send per currency against the last
// known available balance of that currency (in its own minor units). A currency with no balance
// snapshot is not known, and so not blocked: the gateway still refuses what it cannot cover.
import type { CurrencyFunding } from '../../contract/api';
import type { DeskRuntime } from './runtime';
import { money, type DecimalsOf } from './convert';

export interface CurrencyTotal {
  currencyCode: string;
  amountMinor: number;
  count: number;
}

/** Totals per currency against the journal's latest balances (no network). */
export async function fundingFrom(rt: DeskRuntime, profileId: string, totals: readonly CurrencyTotal[], decimalsOf: DecimalsOf): Promise<CurrencyFunding[]> {
  const latest = await (await rt.journalFor(profileId)).latestBalances();
  return totals.map((t) => {
    const snap = latest.find((b) => b.currencyCode === t.currencyCode);
    const short = snap ? t.amountMinor - snap.availableMinor : 0;
    return {
      currencyCode: t.currencyCode,
      count: t.count,
      required: money(t.amountMinor, t.currencyCode, decimalsOf),
      available: snap ? money(snap.availableMinor, t.currencyCode, decimalsOf) : null,
      shortfall: short > 0 ? money(short, t.currencyCode, decimalsOf) : null,
    };
  });
}

export interface FreshnessOptions {
  /** Balances read (or tried) this recently are used as they are; default: always read. */
  maxAgeMs?: number;
  /** Longest wait for the gateway; after it the stored balances answer (the read still lands in the journal). */
  waitMs?: number;
}

/** When each profile's balances were last read or tried, per runtime: a form validated on every keystroke reads them once in a while. */
const lastReads = new WeakMap<DeskRuntime, Map<string, number>>();

/** Funding after a read of the balances, and why the read did not happen (null when it did, or was recent enough). */
export interface CheckedFunding {
  funding: CurrencyFunding[];
  notRead: string | null;
}

/** The same, after reading the balances of these currencies from the gateway (offline: the stored ones). */
export async function freshFunding(
  rt: DeskRuntime,
  profileId: string,
  totals: readonly CurrencyTotal[],
  decimalsOf: DecimalsOf,
  options: FreshnessOptions = {},
): Promise<CurrencyFunding[]> {
  return (await checkedFunding(rt, profileId, totals, decimalsOf, options)).funding;
}

/** freshFunding, saying when the balances could not be read, so a report never calls stored balances checked. */
export async function checkedFunding(
  rt: DeskRuntime,
  profileId: string,
  totals: readonly CurrencyTotal[],
  decimalsOf: DecimalsOf,
  options: FreshnessOptions = {},
): Promise<CheckedFunding> {
  const reads = lastReads.get(rt) ?? new Map<string, number>();
  lastReads.set(rt, reads);
  const key = `${profileId}|${totals.map((t) => t.currencyCode).sort().join(',')}`;
  const last = reads.get(key);
  let notRead: string | null = null;
  if (options.maxAgeMs === undefined || last === undefined || Date.now() - last > options.maxAgeMs) {
    reads.set(key, Date.now());
    const read = (async () => (await rt.engineFor(profileId)).refreshBalances(totals.map((t) => t.currencyCode)))();
    read.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const cap = options.waitMs === undefined ? read : Promise.race([read, new Promise<void>((resolve) => (timer = setTimeout(resolve, options.waitMs)))]);
    try {
      await cap;
    } catch (error) {
      // Offline: the last stored balances are used, and shown with their age on the balances screen.
      notRead = error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
    }
  }
  return { funding: await fundingFrom(rt, profileId, totals, decimalsOf), notRead };
}

/** "EUR short by 10.00 (needs 110.00, available 100.00)" for each underfunded currency. */
export function shortfallText(funding: readonly CurrencyFunding[]): string {
  return funding
    .filter((f) => f.shortfall)
    .map((f) => `${f.currencyCode} short by ${f.shortfall?.amount} (needs ${f.required.amount}, available ${f.available?.amount})`)
    .join('; ');
}
