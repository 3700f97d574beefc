// balances:* — the last snapshots and payouts still pending from the journal; refresh asks the gateway.
import type { BalanceView } from '../../contract/api';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { NOT_SENDER_MESSAGE } from '../engine/payout-engine';
import { DeskError } from './services';
import { iso, money, type DecimalsOf } from './convert';
import type { CurrencyCache } from './currency-cache';

export function balancesService(rt: DeskRuntime, currencies: CurrencyCache): ProfileAreaService<'balances'> {
  const views = async (profileId: string, decimalsOf: DecimalsOf): Promise<BalanceView[]> => {
    const journal = await rt.journalFor(profileId);
    const pending = new Map((await journal.pendingPayoutTotals()).map((t) => [t.currencyCode, t.amountMinor]));
    const latest = await journal.latestBalances();
    const codes = new Set([...latest.map((b) => b.currencyCode), ...pending.keys()]);
    return [...codes].sort().map((code) => {
      const snap = latest.find((b) => b.currencyCode === code);
      return {
        currencyCode: code,
        available: money(snap?.availableMinor ?? 0, code, decimalsOf),
        reserved: money(snap?.reservedMinor ?? 0, code, decimalsOf),
        pendingOutgoing: money(pending.get(code) ?? 0, code, decimalsOf),
        observedAt: snap ? iso(snap.observedAt) : null,
      };
    });
  };
  return {
    async get(profile) {
      return views(profile.id, currencies.decimalsOf(profile.id));
    },
    async refresh(profile) {
      const engine = await rt.engineFor(profile.id);
      // A desk of a team without the merchant's key: the sender desks' readings are what there is.
      if (!engine.sends) throw new DeskError('NOT_SENDER', NOT_SENDER_MESSAGE);
      const codes = (await currencies.currencies(profile.id)).map((c) => c.code);
      await engine.refreshBalances(codes);
      return views(profile.id, currencies.decimalsOf(profile.id));
    },
    async series(profile, { currencyCode, from, to }) {
      const decimalsOf = currencies.decimalsOf(profile.id);
      const points = await (await rt.journalFor(profile.id)).balanceSeries(currencyCode, from ? Date.parse(from) : undefined, to ? Date.parse(to) : undefined);
      return points.map((p) => ({ at: iso(p.observedAt), available: money(p.availableMinor, currencyCode, decimalsOf), reserved: money(p.reservedMinor, currencyCode, decimalsOf) }));
    },
    async pending(profile) {
      const decimalsOf = currencies.decimalsOf(profile.id);
      return (await (await rt.journalFor(profile.id)).pendingPayoutTotals()).map((t) => money(t.amountMinor, t.currencyCode, decimalsOf));
    },
  };
}
