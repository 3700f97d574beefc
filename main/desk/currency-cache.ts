// Currency decimals per profile, read once from GET /currencies. Offline, or before the first read,
// ISO 4217 answers (DESIGN.md §3), so journals and history still format amounts without the gateway.
import type { CurrencyInfo } from '../gateway/client';
import type { DeskRuntime } from './runtime';
import { decimalsFrom, type DecimalsOf } from './convert';

export interface CurrencyCache {
  /** Decimals known right now (no network). */
  decimalsOf(profileId: string): DecimalsOf;
  /** The gateway's list, fetched once per profile (and again after a failure). */
  currencies(profileId: string): Promise<CurrencyInfo[]>;
  /** The gateway's decimals when reachable, else ISO. */
  freshDecimalsOf(profileId: string): Promise<DecimalsOf>;
}

export function createCurrencyCache(rt: DeskRuntime): CurrencyCache {
  const lists = new Map<string, Promise<CurrencyInfo[]>>();
  const maps = new Map<string, Map<string, number>>();
  const currencies = (profileId: string): Promise<CurrencyInfo[]> => {
    let list = lists.get(profileId);
    if (!list) {
      list = rt.ctx.gatewayFor(profileId).currencies();
      lists.set(profileId, list);
      list.then(
        (items) => maps.set(profileId, new Map(items.map((c) => [c.code, c.decimals]))),
        () => lists.delete(profileId),
      );
    }
    return list;
  };
  return {
    decimalsOf: (profileId) => decimalsFrom(maps.get(profileId)),
    currencies,
    async freshDecimalsOf(profileId) {
      try {
        await currencies(profileId);
      } catch {
        // Offline: ISO decimals.
      }
      return decimalsFrom(maps.get(profileId));
    },
  };
}
