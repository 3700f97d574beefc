// Runs a call to main with the house rules: a second click while the first is in flight does nothing,
// every failure goes through the error helper to a snackbar and into `error` for the screen's error state.
// With `latest`, a new call is not refused but replaces the one in flight: only the latest call's answer
// (and error) counts, an older one that lands later is dropped (renderer/lib/latest-request.ts).
import { ref, type Ref } from 'vue';
import type { Result } from '../../contract/api';
import { describeError, errorFromException, type DeskError } from '../lib/errors';
import { latestRequests } from '../lib/latest-request';
import { useNotifyStore } from '../stores/notify';

export type DeskResult<T> = Result<T>;

export interface Action<A extends unknown[], T> {
  busy: Ref<boolean>;
  error: Ref<DeskError | null>;
  run: (...args: A) => Promise<T | undefined>;
}

export interface ActionOptions {
  /** Show failures as a snackbar (default true); screens with an inline error state may turn it off. */
  notify?: boolean;
  /** Message shown on success. */
  success?: string;
  /** A new call replaces the one in flight (choosing another file, typing a new search) instead of being ignored. */
  latest?: boolean;
}

export function useAction<A extends unknown[], T>(
  call: (...args: A) => Promise<DeskResult<T>>,
  options: ActionOptions = {},
): Action<A, T> {
  const busy = ref(false);
  const error = ref<DeskError | null>(null);
  const notify = useNotifyStore();
  const requests = latestRequests();

  async function run(...args: A): Promise<T | undefined> {
    if (busy.value && !options.latest) return undefined;
    const isLatest = requests.begin();
    busy.value = true;
    error.value = null;
    let failure: DeskError | null = null;
    let data: T | undefined;
    try {
      const result = await call(...args);
      if (result.ok) data = result.data;
      else failure = result.error;
    } catch (e) {
      failure = errorFromException(e);
    }
    // A newer call owns busy, error and the snackbar now: this answer is dropped.
    if (!isLatest()) return undefined;
    busy.value = false;
    if (!failure) {
      if (options.success) notify.success(options.success);
      return data;
    }
    error.value = failure;
    if (options.notify !== false) notify.error(describeError(failure));
    return undefined;
  }

  return { busy, error, run };
}

/** Unwraps a result in store code: returns the data or throws the DeskError (caught by the caller's action). */
export async function unwrap<T>(p: Promise<DeskResult<T>>): Promise<T> {
  const r = await p;
  if (r.ok) return r.data;
  throw Object.assign(new Error(r.error.message), { deskError: r.error });
}
