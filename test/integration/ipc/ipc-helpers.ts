// Helpers of the IPC integration tests: call a handler and unwrap its result, and poll until a read is done.
import type { ArgsOf, Channel, IpcHandlerMap, ResultOf } from '../../../contract/api';

/** A caller over one handler map: the data of an ok result, or an error naming the channel, code and message. */
export function callerOf(handlers: () => IpcHandlerMap) {
  return async function call<C extends Channel>(channel: C, args?: ArgsOf<C>): Promise<ResultOf<C>> {
    const result = await handlers()[channel](args);
    if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`);
    return result.data as ResultOf<C>;
  };
}

/** Reads every 250 ms until `done` says so or the time is up; returns the last value either way. */
export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
}
