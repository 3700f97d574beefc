// Typed events from the services to the renderer (batch progress, status changes, connection,
// notifications, menu commands). main/ipc/register.ts forwards them to the window; the Playwright harness
// forwards them to the page; services only ever see this emitter.
import { EventEmitter } from 'node:events';
import type { EventContract, EventName, Unsubscribe } from '../../contract/api';

export interface DeskEvents {
  emit<E extends EventName>(name: E, payload: EventContract[E]): void;
  on<E extends EventName>(name: E, listener: (payload: EventContract[E]) => void): Unsubscribe;
  /** Every event, for forwarding. */
  onAny(listener: <E extends EventName>(name: E, payload: EventContract[E]) => void): Unsubscribe;
}

export function createDeskEvents(onListenerError?: (error: unknown) => void): DeskEvents {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(100);
  const ANY = Symbol('any');
  const safe =
    <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A) => {
      // One broken listener must not stop the batch runner that emitted the event.
      try {
        fn(...args);
      } catch (error) {
        onListenerError?.(error);
      }
    };
  return {
    emit(name, payload) {
      emitter.emit(name, payload);
      emitter.emit(ANY, name, payload);
    },
    on(name, listener) {
      const wrapped = safe(listener);
      emitter.on(name, wrapped);
      return () => emitter.off(name, wrapped);
    },
    onAny(listener) {
      const wrapped = safe(listener);
      emitter.on(ANY, wrapped);
      return () => emitter.off(ANY, wrapped);
    },
  };
}
