// Balances of the active profile: the latest snapshot per currency and the history behind the chart.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { BalanceView } from '../../contract/api';
import type { ChartPoint } from '../components/BalanceChart.vue';
import { desk } from '../desk';
import type { DeskError } from '../lib/errors';
import { latestRequests, type IsLatest } from '../lib/latest-request';
import { registerAreaStore } from './session';

export const useBalancesStore = defineStore('balances', () => {
  const balances = ref<BalanceView[]>([]);
  const points = ref<ChartPoint[]>([]);
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<DeskError | null>(null);

  // A refresh from the gateway replaces a journal read still on its way (and the other way round): only
  // the latest load's balances and chart are shown.
  const loads = latestRequests();
  let loadingFromGateway = false;

  async function loadSeries(isLatest: IsLatest): Promise<void> {
    const all: ChartPoint[] = [];
    for (const b of balances.value) {
      const r = await desk().balances.series({ currencyCode: b.currencyCode });
      if (!isLatest()) return;
      if (r.ok) for (const p of r.data) all.push({ at: p.at, currencyCode: b.currencyCode, available: p.available.amount });
    }
    points.value = all;
  }

  async function load(fromGateway: boolean): Promise<void> {
    // The same load twice (a double click) is one load; a different one replaces it.
    if (loading.value && loadingFromGateway === fromGateway) return;
    const isLatest = loads.begin();
    loading.value = true;
    loadingFromGateway = fromGateway;
    error.value = null;
    try {
      const r = fromGateway ? await desk().balances.refresh() : await desk().balances.get();
      if (!isLatest()) return;
      if (!r.ok) {
        error.value = r.error;
        return;
      }
      balances.value = r.data;
      loaded.value = true;
      await loadSeries(isLatest);
    } finally {
      if (isLatest()) loading.value = false;
    }
  }

  async function hydrate(): Promise<void> {
    await load(false);
    // An empty journal means this profile has never asked: ask the gateway once.
    if (!error.value && balances.value.length === 0) await load(true);
  }

  function dehydrate(): void {
    loads.dropAll();
    loading.value = false;
    balances.value = [];
    points.value = [];
    loaded.value = false;
    error.value = null;
  }

  return { balances, points, loading, loaded, error, load, hydrate, dehydrate };
});

registerAreaStore(useBalancesStore);
