// Batch payouts: the validated file, the warnings confirmed, the running batch's progress and past batches.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { BatchFileSource, BatchProgress, FileGrant, BatchResultRow, BatchValidation, BatchView, CsvIssueView, Unsubscribe } from '../../contract/api';
import { desk } from '../desk';
import type { DeskError } from '../lib/errors';
import { latestRequests } from '../lib/latest-request';
import { registerAreaStore } from './session';

const FINISHED: ReadonlySet<string> = new Set(['COMPLETED', 'CANCELLED', 'FAILED']);

export function isBatchFinished(state: string): boolean {
  return FINISHED.has(state);
}

/**
 * How amounts in the file are read: 'auto' lets main decide (decimal comma when the file is separated
 * by ";", a point otherwise); the other two override it.
 */
export type DecimalMode = 'auto' | 'comma' | 'point';

export function decimalCommaOf(mode: DecimalMode): boolean | undefined {
  return mode === 'comma' ? true : mode === 'point' ? false : undefined;
}

/**
 * The file as it goes to main: its raw bytes. Reading a Blob into an ArrayBuffer happens off the UI
 * thread, and the bytes cross IPC as a structured clone, so even a 50 MB file builds no string here.
 */
/** A file dropped or picked in the page, or one chosen in main's open dialog (menu: Import CSV). */
/** A file from the page's own picker or drop (its bytes are sent), or one main chose in its dialog (a token). */
export type BatchInput = File | FileGrant;

export async function fileSource(file: Blob & { name: string }): Promise<BatchFileSource> {
  return { kind: 'bytes', fileName: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
}

/** One warning's confirmation key: a row can carry several warnings, each confirmed on its own. */
export function warningKey(w: Pick<CsvIssueView, 'rowNumber' | 'code'>): string {
  return `${w.rowNumber}:${w.code}`;
}

export const useBatchesStore = defineStore('batches', () => {
  const validation = ref<BatchValidation | null>(null);
  /** The file behind `validation`, kept so a change of the decimal separator can read it again. */
  /** What the validation on screen was read from: a dropped or picked file, or a path chosen in main's dialog. */
  const file = shallowRef<BatchInput | null>(null);
  /** The user's choice of decimal separator; stays for the next file. */
  const decimalMode = ref<DecimalMode>('auto');
  /** The choice `validation` was read with (may lag decimalMode while a new validation runs or failed). */
  const validatedDecimalMode = ref<DecimalMode>('auto');
  /** Confirmed warnings by warningKey (row and code), so one tick never confirms two warnings. */
  const confirmedWarnings = ref<Set<string>>(new Set());
  /** Set by the menu's "Import CSV batch…"; the upload card opens its file picker when it sees it. */
  const pickerRequested = ref(false);
  const onlyFunded = ref(false);
  const current = ref<BatchView | null>(null);
  const results = ref<BatchResultRow[]>([]);
  const past = ref<BatchView[]>([]);
  const pastLoading = ref(false);
  const pastError = ref<DeskError | null>(null);
  let unsubscribe: Unsubscribe | undefined;
  let unsubscribeStatus: Unsubscribe | undefined;
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  // One ticket office per kind of answer: only the latest request of each kind reaches the screen.
  const validations = latestRequests();
  const opens = latestRequests();
  const pastLoads = latestRequests();
  const resultLoads = latestRequests();

  /**
   * The rows "retry failed rows" would send again, as the results show them now. Main decides, per
   * intent (`row.retryable`): a row already retried, or one still moving, is not offered. The renderer
   * keeps no rule of its own, so what the dialog lists is what main will accept.
   */
  const retryRows = computed(() => results.value.filter((r) => r.retryable));
  const shortfalls = computed(() => validation.value?.funding.filter((f) => f.shortfall !== null) ?? []);
  const fundedCurrencies = computed(
    () => validation.value?.funding.filter((f) => f.shortfall === null).map((f) => f.currencyCode) ?? [],
  );
  const warningRows = computed(() => [...new Set(validation.value?.warnings.map((w) => w.rowNumber) ?? [])]);
  /** Rows whose every warning is confirmed: only these go to main as confirmed (row 0 is the file itself). */
  const confirmedRows = computed(() => {
    const warnings = validation.value?.warnings ?? [];
    return warningRows.value.filter((row) =>
      warnings.every((w) => w.rowNumber !== row || confirmedWarnings.value.has(warningKey(w))),
    );
  });
  const allWarningsConfirmed = computed(() => confirmedRows.value.length === warningRows.value.length);
  /** Why the batch cannot be submitted yet; empty when it can. */
  const blockers = computed(() => {
    const v = validation.value;
    if (!v) return ['No file'];
    const out: string[] = [];
    if (v.counts.invalid > 0) out.push(`${v.counts.invalid} row(s) have errors: fix the file and upload it again.`);
    if (v.counts.valid === 0) out.push('The file has no payable rows.');
    if (shortfalls.value.length > 0 && !onlyFunded.value) {
      out.push(`Not enough balance in ${shortfalls.value.map((s) => s.currencyCode).join(', ')}.`);
    }
    if (onlyFunded.value && fundedCurrencies.value.length === 0) out.push('No currency is funded.');
    // A file submitted before is one more warning to confirm (row 0), not a blocker: sending it again
    // on purpose is allowed once the user has ticked it.
    if (!allWarningsConfirmed.value) out.push('Confirm every warning first.');
    return out;
  });
  const rowsToSend = computed(() => {
    const v = validation.value;
    if (!v) return [];
    if (!onlyFunded.value) return v.rows;
    const funded = new Set(fundedCurrencies.value);
    return v.rows.filter((r) => funded.has(r.money.currencyCode));
  });

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

  /**
   * Reads a file (or the same one with another decimal separator). Only the latest request's answer is
   * shown: a slower answer for the file chosen before, landing after it, is dropped (it is returned, not applied).
   */
  async function validateFile(next: BatchInput) {
    const isLatest = validations.begin();
    const mode = decimalMode.value;
    const decimalComma = decimalCommaOf(mode);
    const source: BatchFileSource = next instanceof Blob ? await fileSource(next) : { kind: 'granted', token: next.token };
    const r = await desk().batches.validateFile({ source, ...(decimalComma !== undefined ? { decimalComma } : {}) });
    if (r.ok && isLatest()) {
      validation.value = r.data;
      file.value = next;
      validatedDecimalMode.value = mode;
      confirmedWarnings.value = new Set();
      onlyFunded.value = false;
      current.value = null;
      results.value = [];
    }
    return r;
  }

  /** Reads the same file again with the current decimal separator (a new validation: warnings are confirmed anew). */
  async function revalidate() {
    if (!file.value) throw new Error('no file to read again');
    return validateFile(file.value);
  }

  function confirmWarning(warning: Pick<CsvIssueView, 'rowNumber' | 'code'>, confirmed: boolean): void {
    const next = new Set(confirmedWarnings.value);
    if (confirmed) next.add(warningKey(warning));
    else next.delete(warningKey(warning));
    confirmedWarnings.value = next;
  }

  function isWarningConfirmed(warning: Pick<CsvIssueView, 'rowNumber' | 'code'>): boolean {
    return confirmedWarnings.value.has(warningKey(warning));
  }

  function requestPicker(): void {
    pickerRequested.value = true;
  }

  /** True once per request: the caller opens the file picker. */
  function takePickerRequest(): boolean {
    const requested = pickerRequested.value;
    pickerRequested.value = false;
    return requested;
  }

  async function submit() {
    const v = validation.value;
    if (!v) throw new Error('nothing to submit');
    listen();
    const r = await desk().batches.submit({
      validationId: v.validationId,
      confirmedWarningRows: confirmedRows.value,
      ...(onlyFunded.value ? { currencyCodes: fundedCurrencies.value } : {}),
    });
    if (r.ok) {
      validations.dropAll();
      opens.dropAll();
      current.value = r.data;
      validation.value = null;
      file.value = null;
      void loadPast();
    }
    return r;
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
      validations.dropAll();
      current.value = r.data;
      validation.value = null;
      file.value = null;
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
    validations.dropAll();
    opens.dropAll();
    resultLoads.dropAll();
    validation.value = null;
    file.value = null;
    current.value = null;
    results.value = [];
    confirmedWarnings.value = new Set();
    onlyFunded.value = false;
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
    decimalMode.value = 'auto';
    pastLoads.dropAll();
    pastLoading.value = false;
    past.value = [];
  }

  return {
    validation,
    file,
    decimalMode,
    validatedDecimalMode,
    confirmedWarnings,
    onlyFunded,
    current,
    results,
    past,
    pastLoading,
    pastError,
    retryRows,
    shortfalls,
    fundedCurrencies,
    warningRows,
    confirmedRows,
    allWarningsConfirmed,
    pickerRequested,
    blockers,
    rowsToSend,
    validateFile,
    revalidate,
    confirmWarning,
    isWarningConfirmed,
    requestPicker,
    takePickerRequest,
    submit,
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

registerAreaStore(useBatchesStore);
