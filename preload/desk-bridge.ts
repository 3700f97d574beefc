// Builds the `window.desk` object from the contract's channel lists. No electron import: the
// preload passes ipcRenderer-backed functions in, tests and the Playwright harness pass their own.
// The renderer only ever receives named functions; there is no generic invoke or send.
import { EVENT_CHANNELS, IPC_METHODS, type Area, type DeskApi, type EventChannel, type EventName, type Unsubscribe } from './api';

export type Invoke = (channel: string, args: unknown) => Promise<unknown>;
export type Subscribe = (channel: EventChannel, listener: (payload: unknown) => void) => Unsubscribe;

export function buildDeskApi(invoke: Invoke, subscribe: Subscribe): DeskApi {
  const desk: Record<string, Readonly<Record<string, unknown>>> = {};
  for (const area of Object.keys(IPC_METHODS) as Area[]) {
    const methods: Record<string, (args?: unknown) => Promise<unknown>> = {};
    for (const verb of IPC_METHODS[area] as readonly string[]) {
      const channel = `${area}:${verb}`;
      // A fresh closure per method: the renderer cannot pick the channel.
      methods[verb] = (args?: unknown) => invoke(channel, args);
    }
    desk[area] = Object.freeze(methods);
  }
  const events: Record<string, (listener: (payload: unknown) => void) => Unsubscribe> = {};
  for (const name of Object.keys(EVENT_CHANNELS) as EventName[]) {
    const channel = EVENT_CHANNELS[name];
    events[name] = (listener) => {
      if (typeof listener !== 'function') throw new TypeError(`desk.events.${name} needs a listener function`);
      return subscribe(channel, listener);
    };
  }
  desk['events'] = Object.freeze(events);
  // The object is assembled from the same lists the contract type is checked against (see contract tests).
  return Object.freeze(desk) as unknown as DeskApi;
}
