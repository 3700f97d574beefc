// The funding rule batches and single payouts share: the amount to send per currency against the last
// known available balance of that currency (in its own minor units). A currency with no balance
// snapshot is not known, and so not blocked: the gateway still refuses what it cannot cover.
import type { CurrencyFunding } from '../../preload/api';
import type { DeskRuntime } from './runtime';
import { money, type DecimalsOf } from './convert';

export interface CurrencyTotal {
  currencyCode: string;
  amountMinor: number;
  count: number;
}

/** Totals per currency against the journal's latest balances (no network). */
export function fundingFrom(rt: DeskRuntime, profileId: string, totals: readonly CurrencyTotal[], decimalsOf: DecimalsOf): CurrencyFunding[] {
  const latest = rt.journalFor(profileId).latestBalances();
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

/** The same, after reading the balances of these currencies from the gateway (offline: the stored ones). */
export async function freshFunding(rt: DeskRuntime, profileId: string, totals: readonly CurrencyTotal[], decimalsOf: DecimalsOf): Promise<CurrencyFunding[]> {
  try {
    await (await rt.engineFor(profileId)).refreshBalances(totals.map((t) => t.currencyCode));
  } catch {
    // Offline: the last stored balances are used, and shown with their age on the balances screen.
  }
  return fundingFrom(rt, profileId, totals, decimalsOf);
}

/** "EUR short by 10.00 (needs 110.00, available 100.00)" for each underfunded currency. */
export function shortfallText(funding: readonly CurrencyFunding[]): string {
  return funding
    .filter((f) => f.shortfall)
    .map((f) => `${f.currencyCode} short by ${f.shortfall?.amount} (needs ${f.required.amount}, available ${f.available?.amount})`)
    .join('; ');
}
