// Runs a call to main with the house rules: a second click while the first is in flight does nothing,
// every failure goes through the error helper to a snackbar and into `error` for the screen's error state.
import { ref, type Ref } from 'vue';
import type { Result } from '../../preload/api';
import { describeError, errorFromException, type DeskError } from '../lib/errors';
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
}

export function useAction<A extends unknown[], T>(
  call: (...args: A) => Promise<DeskResult<T>>,
  options: ActionOptions = {},
): Action<A, T> {
  const busy = ref(false);
  const error = ref<DeskError | null>(null);
  const notify = useNotifyStore();

  async function run(...args: A): Promise<T | undefined> {
    if (busy.value) return undefined;
    busy.value = true;
    error.value = null;
    try {
      const result = await call(...args);
      if (result.ok) {
        if (options.success) notify.success(options.success);
        return result.data;
      }
      error.value = result.error;
    } catch (e) {
      error.value = errorFromException(e);
    } finally {
      busy.value = false;
    }
    if (error.value && options.notify !== false) notify.error(describeError(error.value));
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
