// History: one window onto every payout and payin. Rows are fetched from main in pages, only where the
// table is looking, so 100,000 payments cost what one screenful costs.
import { defineStore } from 'pinia';
import { ref, shallowRef, triggerRef } from 'vue';
import type { HistoryFilters, HistoryQuery, HistoryRow, HistorySortField, Unsubscribe } from '../../contract/api';
import { HISTORY_PAGE_SIZE } from '../../contract/limits';
import { desk } from '../desk';
import type { DeskError } from '../lib/errors';
import { appliedSearch, nextTotal } from '../lib/history-total';
import { latestRequests, type IsLatest } from '../lib/latest-request';
import { registerAreaStore } from './session';


export const useHistoryStore = defineStore('history', () => {
  const filters = ref<HistoryFilters>({});
  const sort = ref<{ field: HistorySortField; direction: 'asc' | 'desc' }>({ field: 'createdAt', direction: 'desc' });
  const total = ref(0);
  /** More rows match than `total`: main counted only some way past the page asked ("10,000+"). */
  const totalCapped = ref(false);
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<DeskError | null>(null);
  // Sparse page cache; shallow so 100,000 rows never become deep reactive proxies.
  const pages = shallowRef(new Map<number, HistoryRow[]>());
  const inFlight = new Set<number>();
  // Every apply() (new filters, search, sort) makes the answers to earlier queries stale.
  const queries = latestRequests();
  let current: IsLatest = queries.begin();
  let unsubscribe: Unsubscribe | undefined;
  let staleTimer: ReturnType<typeof setTimeout> | undefined;
  /** The rows the table last asked for, fetched again once a fresh first page has replaced the cache. */
  let wanted = { start: 0, end: 0 };

  function query(offset: number, limit: number): HistoryQuery {
    return { offset, limit, filters: cleanFilters(), sort: sort.value };
  }

  function cleanFilters(): HistoryFilters {
    const f = filters.value;
    const out: HistoryFilters = {};
    if (f.kinds?.length) out.kinds = [...f.kinds];
    if (f.statuses?.length) out.statuses = [...f.statuses];
    if (f.currencyCodes?.length) out.currencyCodes = [...f.currencyCodes];
    if (f.from) out.from = f.from;
    if (f.to) out.to = f.to;
    if (f.batchId) out.batchId = f.batchId;
    const search = appliedSearch(f.search);
    if (search) out.search = search;
    return out;
  }

  /** `fresh`: the first page of new filters, which replaces the whole cache when it arrives. */
  async function fetchPage(page: number, isLatest: IsLatest, fresh = false): Promise<void> {
    if (inFlight.has(page)) return;
    inFlight.add(page);
    try {
      const r = await desk().history.query(query(page * HISTORY_PAGE_SIZE, HISTORY_PAGE_SIZE));
      if (!isLatest()) return;
      if (!r.ok) {
        error.value = r.error;
        return;
      }
      takeTotal(r.data.total, r.data.totalCapped === true, fresh);
      if (fresh) {
        pages.value = new Map([[page, r.data.items]]);
      } else {
        pages.value.set(page, r.data.items);
        triggerRef(pages);
      }
    } finally {
      // A newer apply() cleared the set and may have this page on its way again: that mark is not ours.
      if (isLatest()) inFlight.delete(page);
    }
  }

  function takeTotal(answer: number, capped: boolean, fresh: boolean): void {
    const next = nextTotal({ total: total.value, capped: totalCapped.value }, { total: answer, capped }, fresh);
    total.value = next.total;
    totalCapped.value = next.capped;
  }

  /** Makes sure rows [start, end) are loaded or on their way (while apply() waits for its first page, it asks afterwards). */
  function ensureRange(start: number, end: number): void {
    wanted = { start, end };
    if (loading.value || !loaded.value) return;
    const first = Math.max(0, Math.floor(start / HISTORY_PAGE_SIZE));
    const last = Math.floor(Math.max(start, end - 1) / HISTORY_PAGE_SIZE);
    for (let p = first; p <= last; p++) if (!pages.value.has(p)) void fetchPage(p, current);
  }

  function rowAt(index: number): HistoryRow | undefined {
    return pages.value.get(Math.floor(index / HISTORY_PAGE_SIZE))?.[index % HISTORY_PAGE_SIZE];
  }

  /**
   * Starts over with the current filters: the first page decides the total. The rows on screen stay
   * until it arrives, so the table never flashes empty.
   */
  async function apply(): Promise<void> {
    const isLatest = queries.begin();
    current = isLatest;
    inFlight.clear();
    error.value = null;
    loading.value = true;
    try {
      await fetchPage(0, isLatest, true);
    } finally {
      // A newer apply() owns the flags now.
      if (isLatest()) {
        loaded.value = true;
        loading.value = false;
      }
    }
    if (isLatest()) ensureRange(wanted.start, wanted.end);
  }

  /** Status changes arrive while the table is open: refresh the cached pages, at most twice a second. */
  function markStale(): void {
    if (staleTimer) return;
    staleTimer = setTimeout(() => {
      staleTimer = undefined;
      const cached = [...pages.value.keys()];
      for (const p of cached) void fetchPage(p, current);
    }, 500);
  }

  async function hydrate(): Promise<void> {
    if (!unsubscribe) {
      // Status changes, and batches another desk of a team stored or moved (many rows at once come as the batch's progress).
      const offs = [desk().events.paymentStatusChanged(() => markStale()), desk().events.batchProgress(() => markStale())];
      unsubscribe = () => offs.forEach((off) => off());
    }
    await apply();
  }

  function dehydrate(): void {
    unsubscribe?.();
    unsubscribe = undefined;
    queries.dropAll();
    current = queries.begin();
    pages.value = new Map();
    total.value = 0;
    totalCapped.value = false;
    loaded.value = false;
    filters.value = {};
  }

  async function exportFiltered() {
    return desk().history.export({ filters: cleanFilters(), sort: sort.value });
  }

  return { filters, sort, total, totalCapped, loading, loaded, error, pages, ensureRange, rowAt, apply, hydrate, dehydrate, exportFiltered };
});

registerAreaStore(useHistoryStore);
