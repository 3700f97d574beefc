// Keys of the active profile. Only public material ever reaches this store.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { KeyView } from '../../contract/api';
import { desk } from '../desk';
import { registerAreaStore } from './session';

export const useKeysStore = defineStore('keys', () => {
  const keys = ref<KeyView[]>([]);
  const loaded = ref(false);
  const active = computed(() => keys.value.find((k) => k.status === 'active') ?? null);

  async function load() {
    const r = await desk().keys.list({});
    if (r.ok) {
      keys.value = r.data;
      loaded.value = true;
    }
    return r;
  }

  async function hydrate(): Promise<void> {
    await load();
  }

  function dehydrate(): void {
    keys.value = [];
    loaded.value = false;
  }

  async function generate() {
    const r = await desk().keys.generate({});
    if (r.ok) await load();
    return r;
  }

  /** `file`: the token main gave for the key file the user chose or dropped; main reads the PEM itself. */
  async function importFile(file: string, passphrase?: string) {
    const r = await desk().keys.import({ file, ...(passphrase ? { passphrase } : {}) });
    if (r.ok) await load();
    return r;
  }

  async function rotate() {
    const r = await desk().keys.rotate({});
    if (r.ok) await load();
    return r;
  }

  async function retire(keyId: string) {
    const r = await desk().keys.retire({ keyId });
    if (r.ok) await load();
    return r;
  }

  return { keys, loaded, active, load, hydrate, dehydrate, generate, importFile, rotate, retire };
});

registerAreaStore(useKeysStore);
