// The unlocked person's switches for the alerts main shows at this desk (desktop notifications of what they
// must act on: something waits for their approval, their batch paused, their payout held …). Main keeps the
// mutes per person and profile; this store only holds the answer, and whose it is.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { AlertDigestView, AlertKind, AlertKindView, Result } from '../../contract/api';
import { desk } from '../desk';
import { registerAreaStore } from './session';

export const useAlertsStore = defineStore('alerts', () => {
  const kinds = ref<AlertKindView[]>([]);
  const digest = ref<AlertDigestView | null>(null);
  /** The person `kinds` belong to: a list of someone who locked meanwhile is not shown for the next one. */
  const personId = ref<string | null>(null);

  async function load(forPerson: string): Promise<Result<AlertKindView[]>> {
    const [r, d] = await Promise.all([desk().people.alerts(), desk().people.alertDigest()]);
    if (r.ok) {
      kinds.value = r.data;
      digest.value = d.ok ? d.data : null;
      personId.value = forPerson;
    }
    return r;
  }

  /** The e-mail digest on (an address, hourly or daily) or off (null). */
  async function setDigest(email: string | null, every: AlertDigestView['every']): Promise<Result<AlertDigestView>> {
    const r = await desk().people.setAlertDigest({ email, every });
    if (r.ok) digest.value = r.data;
    return r;
  }

  /** `on`: alerts of this kind come; off mutes them. Main answers with every switch. */
  async function setOn(kind: AlertKind, on: boolean): Promise<Result<AlertKindView[]>> {
    const r = await desk().people.muteAlert({ kind, muted: !on });
    if (r.ok) kinds.value = r.data;
    return r;
  }

  function hydrate(): void {}
  function dehydrate(): void {
    kinds.value = [];
    digest.value = null;
    personId.value = null;
  }

  return { kinds, digest, personId, load, setOn, setDigest, hydrate, dehydrate };
});

registerAreaStore(useAlertsStore);
