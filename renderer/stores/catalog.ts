// Code lists from the gateway (currencies, payout operators), cached per profile.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { CurrencyView, OperatorView } from '../../contract/api';
import { desk } from '../desk';
import type { DeskError } from '../lib/errors';
import { registerAreaStore } from './session';

export const useCatalogStore = defineStore('catalog', () => {
  const currencies = ref<CurrencyView[]>([]);
  const operators = ref<OperatorView[]>([]);
  const loading = ref(false);
  const error = ref<DeskError | null>(null);
  const loaded = ref(false);

  async function hydrate(): Promise<void> {
    if (loading.value) return;
    loading.value = true;
    error.value = null;
    try {
      const [c, o] = await Promise.all([desk().payouts.currencies(), desk().payouts.operators({})]);
      if (!c.ok) error.value = c.error;
      else if (!o.ok) error.value = o.error;
      else {
        currencies.value = c.data;
        operators.value = o.data;
        loaded.value = true;
      }
    } finally {
      loading.value = false;
    }
  }

  function dehydrate(): void {
    currencies.value = [];
    operators.value = [];
    loaded.value = false;
  }

  function operatorsFor(currencyCode: string): OperatorView[] {
    return operators.value.filter((o) => o.currencyCodes.length === 0 || o.currencyCodes.includes(currencyCode));
  }

  function decimalsOf(currencyCode: string): number | undefined {
    return currencies.value.find((c) => c.code === currencyCode)?.decimals;
  }

  return { currencies, operators, loading, error, loaded, hydrate, dehydrate, operatorsFor, decimalsOf };
});

registerAreaStore(useCatalogStore);
