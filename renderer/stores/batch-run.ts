// The batch on screen once it is sent: its progress, its results, the rows a retry sends again, and the
// past batches. What comes before sending (the file, its validation, the warnings confirmed) is the
// draft's (batch-draft.ts), which hands a submitted batch over here.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { BatchProgress, BatchResultRow, BatchView, Unsubscribe } from '../../contract/api';
import { desk } from '../desk';
import type { DeskError } from '../lib/errors';
import { latestRequests } from '../lib/latest-request';
import { registerAreaStore } from './session';

const FINISHED: ReadonlySet<string> = new Set(['COMPLETED', 'CANCELLED', 'FAILED']);

export function isBatchFinished(state: string): boolean {
  return FINISHED.has(state);
}

export const useBatchRunStore = defineStore('batch-run', () => {
  const current = ref<BatchView | null>(null);
  const results = ref<BatchResultRow[]>([]);
  const past = ref<BatchView[]>([]);
  const pastLoading = ref(false);
  const pastError = ref<DeskError | null>(null);
  let unsubscribe: Unsubscribe | undefined;
  let unsubscribeStatus: Unsubscribe | undefined;
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  // One ticket office per kind of answer: only the latest request of each kind reaches the screen.
  const opens = latestRequests();
  const pastLoads = latestRequests();
  const resultLoads = latestRequests();
  /** Told when a past batch is opened onto the screen: the draft drops its file then (batch-draft.ts). */
  const openedListeners: (() => void)[] = [];

  /**
   * The rows "retry failed rows" would send again, as the results show them now. Main decides, per
   * intent (`row.retryable`): a row already retried, or one still moving, is not offered. The renderer
   * keeps no rule of its own, so what the dialog lists is what main will accept.
   */
  const retryRows = computed(() => results.value.filter((r) => r.retryable));

  /** Status changes of the open batch's payouts: re-read its counts and results, at most twice a second. */
  function scheduleRefresh(batchId: string): void {
    if (refreshTimer) return;
    refreshTimer = setTimeout(async () => {
      refreshTimer = undefined;
      if (current.value?.id !== batchId) return;
      const r = await desk().batches.get({ batchId });
      if (!r.ok || current.value?.id !== batchId) return;
      current.value = r.data;
      if (isBatchFinished(r.data.progress.state)) await loadResults(batchId);
    }, 500);
  }

  function listen(): void {
    if (!unsubscribeStatus) {
      unsubscribeStatus = desk().events.paymentStatusChanged((e) => {
        if (e.batchId && e.batchId === current.value?.id) scheduleRefresh(e.batchId);
      });
    }
    if (unsubscribe) return;
    unsubscribe = desk().events.batchProgress((p: BatchProgress) => {
      if (current.value && current.value.id === p.batchId) current.value = { ...current.value, progress: p };
      const i = past.value.findIndex((b) => b.id === p.batchId);
      const existing = past.value[i];
      if (existing) past.value.splice(i, 1, { ...existing, progress: p });
      // A batch this screen has not listed yet: another desk of the team stored it.
      else if (!pastLoading.value) void loadPast();
      if (current.value?.id === p.batchId && isBatchFinished(p.state)) void loadResults(p.batchId);
    });
  }

  function onOpened(listener: () => void): void {
    openedListeners.push(listener);
  }

  /** The draft was submitted: its batch is the one on screen now. */
  function started(batch: BatchView): void {
    opens.dropAll();
    current.value = batch;
    void loadPast();
  }

  /** The batch leaves the screen (a new file was read); it keeps running and stays under "Past batches". */
  function close(): void {
    current.value = null;
    results.value = [];
  }

  async function control(kind: 'pause' | 'resume' | 'cancel') {
    const id = current.value?.id;
    if (!id) throw new Error('no batch');
    const r = await desk().batches[kind]({ batchId: id });
    if (r.ok && current.value?.id === id) {
      current.value = r.data;
      // A cancel returns once the unsent rows are CANCELLED: show them now.
      if (isBatchFinished(r.data.progress.state)) await loadResults(id);
    }
    return r;
  }

  async function loadResults(batchId: string): Promise<void> {
    const isLatest = resultLoads.begin();
    const r = await desk().batches.results({ batchId });
    if (r.ok && isLatest() && current.value?.id === batchId) results.value = r.data;
  }

  async function open(batchId: string) {
    listen();
    const isLatest = opens.begin();
    const r = await desk().batches.get({ batchId });
    if (r.ok && isLatest()) {
      for (const listener of openedListeners) listener();
      current.value = r.data;
      results.value = [];
      if (isBatchFinished(r.data.progress.state)) await loadResults(batchId);
    }
    return r;
  }

  async function retryFailed() {
    const id = current.value?.id;
    if (!id) throw new Error('no batch');
    // The rows the dialog listed, so main sends exactly those or nothing.
    const r = await desk().batches.retryFailed({ batchId: id, idPayouts: retryRows.value.map((row) => row.idPayout) });
    if (r.ok) {
      current.value = r.data;
      results.value = [];
      void loadPast();
    }
    return r;
  }

  /** The batch on screen came from a pain.001: its results carry the EndToEndIds a pain.002 report names. */
  const fromPain001 = computed(() => results.value.some((r) => r.endToEndId !== null));

  /** The ISO 20022 pain.002 status report of the batch on screen (main refuses it for a batch not from a pain.001). */
  async function statusReport() {
    const id = current.value?.id;
    if (!id) throw new Error('no batch');
    return desk().batches.exportResults({ batchId: id, format: 'pain.002' });
  }

  async function loadPast(): Promise<void> {
    const isLatest = pastLoads.begin();
    pastLoading.value = true;
    const r = await desk().batches.list({ limit: 200 });
    if (!isLatest()) return;
    pastLoading.value = false;
    if (r.ok) {
      past.value = r.data.items;
      pastError.value = null;
    } else pastError.value = r.error;
  }

  function reset(): void {
    // Answers still on their way belong to what is being cleared: none of them may land on the empty screen.
    opens.dropAll();
    resultLoads.dropAll();
    close();
  }

  async function hydrate(): Promise<void> {
    listen();
    await loadPast();
  }

  function dehydrate(): void {
    unsubscribe?.();
    unsubscribe = undefined;
    unsubscribeStatus?.();
    unsubscribeStatus = undefined;
    clearTimeout(refreshTimer);
    refreshTimer = undefined;
    reset();
    pastLoads.dropAll();
    pastLoading.value = false;
    past.value = [];
  }

  return {
    current,
    results,
    past,
    pastLoading,
    pastError,
    retryRows,
    fromPain001,
    statusReport,
    listen,
    onOpened,
    started,
    close,
    control,
    open,
    retryFailed,
    loadPast,
    loadResults,
    reset,
    hydrate,
    dehydrate,
  };
});

registerAreaStore(useBatchRunStore);
