// Calling the IPC handlers as the page does, in tests of the real desk services: call (the Result), ok (its data,
// or the test fails with the code and message), fails (the error, or the test fails because it succeeded).
import { expect } from 'vitest';
import type { Channel, IpcHandlerMap, Result } from '../../../contract/api';

export interface HandlerCalls {
  call(channel: Channel, args?: unknown): Promise<Result<unknown>>;
  ok<T>(channel: Channel, args?: unknown): Promise<T>;
  fails(channel: Channel, args?: unknown): Promise<{ code: string; message: string; issues?: { field: string; code: string }[] }>;
}

/** `handlers`: read at each call, so a test may build them in beforeAll. */
export function handlerCalls(handlers: () => IpcHandlerMap): HandlerCalls {
  const call = async (channel: Channel, args?: unknown): Promise<Result<unknown>> => handlers()[channel](args) as Promise<Result<unknown>>;
  return {
    call,
    async ok<T>(channel: Channel, args?: unknown): Promise<T> {
      const r = await call(channel, args);
      if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
      return r.data as T;
    },
    async fails(channel: Channel, args?: unknown) {
      const r = await call(channel, args);
      expect(r.ok, `${channel} should fail`).toBe(false);
      return (r as { ok: false; error: { code: string; message: string; issues?: { field: string; code: string }[] } }).error;
    },
  };
}
