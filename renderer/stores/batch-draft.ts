// The batch before it is sent: the file chosen, its validation, the decimal separator, the warnings
// confirmed and the funded currencies; submitting hands it to the run store (batch-run.ts), which holds
// the batch once it is sent.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { BatchFileSource, ExecuteOn, FileGrant, BatchValidation, CsvIssueView } from '../../contract/api';
import { desk } from '../desk';
import { latestRequests } from '../lib/latest-request';
import { countOf } from '../lib/format';
import { useBatchRunStore } from './batch-run';
import { registerAreaStore } from './session';

/**
 * How amounts in the file are read: 'auto' lets main decide (decimal comma when the file is separated
 * by ";", a point otherwise); the other two override it.
 */
export type DecimalMode = 'auto' | 'comma' | 'point';

export function decimalCommaOf(mode: DecimalMode): boolean | undefined {
  return mode === 'comma' ? true : mode === 'point' ? false : undefined;
}

/** A file from the page's own picker or drop (its bytes are sent), or one main chose in its dialog (a token). */
export type BatchInput = File | FileGrant;

/**
 * The file as it goes to main: its raw bytes. Reading a Blob into an ArrayBuffer happens off the UI
 * thread, and the bytes cross IPC as a structured clone, so even a 50 MB file builds no string here.
 */
export async function fileSource(file: Blob & { name: string }): Promise<BatchFileSource> {
  return { kind: 'bytes', fileName: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
}

/** One warning's confirmation key: a row can carry several warnings, each confirmed on its own. */
export function warningKey(w: Pick<CsvIssueView, 'rowNumber' | 'code'>): string {
  return `${w.rowNumber}:${w.code}`;
}

export const useBatchDraftStore = defineStore('batch-draft', () => {
  const run = useBatchRunStore();
  const validation = ref<BatchValidation | null>(null);
  /** What the validation on screen was read from, kept so a change of the decimal separator can read it again. */
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
  /**
   * "Release on a date" (the calendar): the batch is stored now and released by the desk at that wall time in
   * `zone` (the profile's, Settings), once approved. Its funding is then the Calendar's forecast to show, not a blocker.
   */
  const releaseOn = ref({ on: false, date: '', time: '08:00', zone: '' });
  const executeOn = computed((): ExecuteOn | null => {
    const r = releaseOn.value;
    if (!r.on || !r.date) return null;
    return { local: `${r.date}T${r.time || '08:00'}`, ...(r.zone ? { zone: r.zone } : {}) };
  });
  /** "2026-12-28 09:00 Europe/Berlin", or null when it is sent now. */
  const releaseText = computed(() => (executeOn.value ? `${executeOn.value.local.replace('T', ' ')} ${executeOn.value.zone ?? ''}`.trim() : null));
  // Only the latest validation's answer reaches the screen.
  const validations = latestRequests();

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
    if (v.counts.invalid > 0) out.push(`${countOf(v.counts.invalid, 'row')} ${v.counts.invalid === 1 ? 'has' : 'have'} errors: fix the file and upload it again.`);
    if (v.counts.valid === 0) out.push('The file has no payable rows.');
    if (releaseOn.value.on && !releaseOn.value.date) out.push('Choose the date it is released on, or untick "Release on a date".');
    // Released later: the balance may be topped up by then; the Calendar's forecast shows the shortfall.
    if (shortfalls.value.length > 0 && !onlyFunded.value && !releaseOn.value.on) {
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

  /** The file leaves the screen (submitted, or a past batch opened); a validation still on its way is dropped. */
  function discard(): void {
    validations.dropAll();
    validation.value = null;
    file.value = null;
  }
  run.onOpened(discard);

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
      run.close();
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
    run.listen();
    const r = await desk().batches.submit({
      validationId: v.validationId,
      confirmedWarningRows: confirmedRows.value,
      ...(onlyFunded.value ? { currencyCodes: fundedCurrencies.value } : {}),
      ...(executeOn.value ? { executeOn: executeOn.value } : {}),
    });
    if (r.ok) {
      discard();
      releaseOn.value = { ...releaseOn.value, on: false, date: '', time: '08:00' };
      run.started(r.data);
    }
    return r;
  }

  function reset(): void {
    // An answer still on its way belongs to what is being cleared: it may not land on the empty screen.
    discard();
    confirmedWarnings.value = new Set();
    onlyFunded.value = false;
    releaseOn.value = { ...releaseOn.value, on: false, date: '', time: '08:00' };
  }

  /** Nothing to load: a draft starts empty. */
  function hydrate(): void {}

  function dehydrate(): void {
    reset();
    decimalMode.value = 'auto';
  }

  return {
    validation,
    file,
    decimalMode,
    validatedDecimalMode,
    confirmedWarnings,
    onlyFunded,
    releaseOn,
    executeOn,
    releaseText,
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
    reset,
    hydrate,
    dehydrate,
  };
});

registerAreaStore(useBatchDraftStore);
