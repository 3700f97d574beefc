// The calendar of the active profile: the runs of the month on screen, the funding forecast of everything not yet
// released, and the acts before a release (move, cancel, confirm a late one). Main decides every rule (who may move,
// what is too late); the store asks, and reads the month again after each act and each change main reports.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ExecuteOn, ForecastLineView, ScheduleRef, ScheduleView, Unsubscribe } from '../../contract/api';
import { desk } from '../desk';
import { addMonths, dateInZone, monthOf, monthRange, runsByDay, shortfallLines, type Month } from '../lib/calendar';
import type { DeskError } from '../lib/errors';
import { latestRequests } from '../lib/latest-request';
import { registerAreaStore } from './session';

/** This machine's zone: the profile's until the desk names it. */
const machineZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export const useSchedulesStore = defineStore('schedules', () => {
  const items = ref<ScheduleView[]>([]);
  const forecast = ref<ForecastLineView[]>([]);
  /** The zone days are counted in (the profile's, ScheduleList.zone). */
  const zone = ref<string>(machineZone());
  const zoneKnown = ref(false);
  const month = ref<Month>(monthOf(dateInZone(Date.now(), zone.value)));
  /** The person chose a month: a late answer naming another zone does not move the view. */
  let monthChosen = false;
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<DeskError | null>(null);
  const loads = latestRequests();
  let unsubscribe: Unsubscribe | undefined;

  const byDay = computed(() => runsByDay(items.value, zone.value));
  const shortfalls = computed(() => shortfallLines(forecast.value));
  const today = computed(() => dateInZone(Date.now(), zone.value));

  async function load(): Promise<void> {
    const isLatest = loads.begin();
    loading.value = true;
    const r = await desk().schedules.list(monthRange(month.value));
    if (!isLatest()) return;
    loading.value = false;
    if (!r.ok) {
      error.value = r.error;
      return;
    }
    error.value = null;
    items.value = r.data.items;
    forecast.value = r.data.forecast;
    loaded.value = true;
    if (!zoneKnown.value || zone.value !== r.data.zone) {
      zone.value = r.data.zone;
      zoneKnown.value = true;
      // Opened near midnight, the profile's zone may be in another month than this machine: show its month.
      const current = monthOf(dateInZone(Date.now(), r.data.zone));
      if (!monthChosen && current !== month.value) {
        month.value = current;
        await load();
      }
    }
  }

  function listen(): void {
    if (unsubscribe) return;
    unsubscribe = desk().events.schedulesChanged(() => void load());
  }

  function go(step: -1 | 1): Promise<void> {
    monthChosen = true;
    month.value = addMonths(month.value, step);
    return load();
  }

  function goToday(): Promise<void> {
    monthChosen = false;
    month.value = monthOf(today.value);
    return load();
  }

  function goTo(date: string): Promise<void> {
    monthChosen = true;
    month.value = monthOf(date);
    return load();
  }

  /** Runs an act of the contract, then reads the month again (the forecast moves with it). */
  async function act<T>(call: () => Promise<{ ok: true; data: T } | { ok: false; error: DeskError }>) {
    const r = await call();
    await load();
    return r;
  }
  const move = (ref: ScheduleRef, executeOn: ExecuteOn) => act(() => desk().schedules.move({ ...ref, executeOn }));
  const cancel = (ref: ScheduleRef, reason?: string) => act(() => desk().schedules.cancel({ ...ref, ...(reason ? { reason } : {}) }));
  const confirmLate = (ref: ScheduleRef) => act(() => desk().schedules.confirmLate(ref));

  async function hydrate(): Promise<void> {
    listen();
    await load();
  }

  function dehydrate(): void {
    unsubscribe?.();
    unsubscribe = undefined;
    loads.dropAll();
    items.value = [];
    forecast.value = [];
    loaded.value = false;
    loading.value = false;
    error.value = null;
    zoneKnown.value = false;
    zone.value = machineZone();
    monthChosen = false;
    month.value = monthOf(dateInZone(Date.now(), zone.value));
  }

  return { items, forecast, zone, zoneKnown, month, loading, loaded, error, byDay, shortfalls, today, load, go, goToday, goTo, move, cancel, confirmLate, hydrate, dehydrate };
});

registerAreaStore(useSchedulesStore);
