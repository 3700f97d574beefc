// The Overview (home screen): main's picture of today and the last seven days per currency (overview:get,
// from the journal only). While the screen is open, a payout's status change reads it again, at most about
// once a second however many payouts move, and the turn of the local day reads it again too.
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { OverviewView, Unsubscribe } from '../../contract/api';
import { desk } from '../desk';
import { errorFromException, type DeskError } from '../lib/errors';
import { latestRequests } from '../lib/latest-request';
import { registerAreaStore } from './session';

/** Status changes arriving closer together than this are one read of the Overview. */
export const OVERVIEW_RELOAD_EVERY_MS = 1000;

export const useOverviewStore = defineStore('overview', () => {
  const view = shallowRef<OverviewView | null>(null);
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<DeskError | null>(null);
  // A read begun later (an event, Refresh) replaces one still on its way; a profile switch drops them all.
  const loads = latestRequests();
  let unsubscribe: Unsubscribe | undefined;
  let reloadTimer: ReturnType<typeof setTimeout> | undefined;
  let midnightTimer: ReturnType<typeof setTimeout> | undefined;
  let lastLoadAt = 0;
  let reading = false;
  /** A status changed while a read was on its way: read once more after it (never two reads racing). */
  let readAgain = false;

  async function load(): Promise<void> {
    const isLatest = loads.begin();
    lastLoadAt = Date.now();
    loading.value = true;
    reading = true;
    try {
      const r = await desk().overview.get();
      if (!isLatest()) return;
      if (!r.ok) {
        error.value = r.error;
        return;
      }
      error.value = null;
      view.value = r.data;
      loaded.value = true;
      if (unsubscribe) armMidnight(r.data);
    } catch (e) {
      if (isLatest()) error.value = errorFromException(e);
    } finally {
      if (isLatest()) {
        loading.value = false;
        reading = false;
        if (readAgain) {
          readAgain = false;
          scheduleReload();
        }
      }
    }
  }

  /** A status changed: read again once the second since the last read is over (one read for a burst). */
  function scheduleReload(): void {
    if (reloadTimer) return;
    const wait = Math.max(0, lastLoadAt + OVERVIEW_RELOAD_EVERY_MS - Date.now());
    reloadTimer = setTimeout(() => {
      reloadTimer = undefined;
      // A slow read (a huge journal) is not cut short by the next one, or nothing would ever show.
      if (reading) readAgain = true;
      else void load();
    }, wait);
  }

  /** At the next local midnight "today" is another day: read again then (while the screen is open). */
  function armMidnight(v: OverviewView): void {
    if (midnightTimer) clearTimeout(midnightTimer);
    const today = new Date(v.dayStarts[v.dayStarts.length - 1] ?? v.generatedAt);
    const next = new Date(today.getFullYear(), today.getMonth(), today.getDate() + 1).getTime();
    // A second late, so main's clock is surely on the new day; never sooner than a minute from now (clock skew).
    midnightTimer = setTimeout(() => void load(), Math.max(next - Date.now() + 1000, 60_000));
  }

  /** The screen opened: follow status changes and read now (what was read before stays shown meanwhile). */
  function open(): Promise<void> {
    if (!unsubscribe) {
      unsubscribe = desk().events.paymentStatusChanged((e) => {
        if (e.kind === 'payout') scheduleReload();
      });
    }
    return load();
  }

  /** The screen closed: nothing is read in the background. */
  function close(): void {
    unsubscribe?.();
    unsubscribe = undefined;
    if (reloadTimer) clearTimeout(reloadTimer);
    if (midnightTimer) clearTimeout(midnightTimer);
    reloadTimer = undefined;
    midnightTimer = undefined;
    readAgain = false;
  }

  async function hydrate(): Promise<void> {
    await load();
  }

  /** Another profile: nothing of this one's figures may show under it. */
  function dehydrate(): void {
    close();
    loads.dropAll();
    reading = false;
    view.value = null;
    loading.value = false;
    loaded.value = false;
    error.value = null;
  }

  return { view, loading, loaded, error, load, open, close, hydrate, dehydrate };
});

registerAreaStore(useOverviewStore);
