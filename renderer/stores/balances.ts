// Balances of the active profile: the latest snapshot per currency and the history behind the chart.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { BalanceView } from '../../preload/api';
import type { ChartPoint } from '../components/BalanceChart.vue';
import { desk } from '../desk';
import type { DeskError } from '../lib/errors';
import { registerAreaStore } from './session';

export const useBalancesStore = defineStore('balances', () => {
  const balances = ref<BalanceView[]>([]);
  const points = ref<ChartPoint[]>([]);
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<DeskError | null>(null);

  async function loadSeries(): Promise<void> {
    const all: ChartPoint[] = [];
    for (const b of balances.value) {
      const r = await desk().balances.series({ currencyCode: b.currencyCode });
      if (r.ok) for (const p of r.data) all.push({ at: p.at, currencyCode: b.currencyCode, available: p.available.amount });
    }
    points.value = all;
  }

  async function load(fromGateway: boolean): Promise<void> {
    if (loading.value) return;
    loading.value = true;
    error.value = null;
    try {
      const r = fromGateway ? await desk().balances.refresh() : await desk().balances.get();
      if (!r.ok) {
        error.value = r.error;
        return;
      }
      balances.value = r.data;
      loaded.value = true;
      await loadSeries();
    } finally {
      loading.value = false;
    }
  }

  async function hydrate(): Promise<void> {
    await load(false);
    // An empty journal means this profile has never asked: ask the gateway once.
    if (!error.value && balances.value.length === 0) await load(true);
  }

  function dehydrate(): void {
    balances.value = [];
    points.value = [];
    loaded.value = false;
    error.value = null;
  }

  return { balances, points, loading, loaded, error, load, hydrate, dehydrate };
});

registerAreaStore(useBalancesStore);
