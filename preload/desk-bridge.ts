// Builds the `window.desk` object from the contract's channel lists. No electron import: the
// preload passes ipcRenderer-backed functions in, tests and the Playwright harness pass their own.
// The renderer only ever receives named functions; there is no generic invoke or send.
import { EVENT_CHANNELS, IPC_METHODS, type Area, type DeskApi, type EventChannel, type EventName, type Result, type Unsubscribe } from '../contract/api';

export type Invoke = (channel: string, args: unknown) => Promise<unknown>;
export type Subscribe = (channel: EventChannel, listener: (payload: unknown) => void) => Unsubscribe;
/** The real path of a File the user dropped (Electron's webUtils.getPathForFile); '' for anything else. */
export type PathForFile = (file: File) => string;

const NOT_A_DROPPED_FILE: Result<never> = {
  ok: false,
  error: { code: 'FILE_TYPE', message: 'Only a file dropped from this computer can be used here', retryable: false },
};

/**
 * app:fileDropped as the page sees it: it hands over the File, and the path sent to main is the one the
 * preload reads from it. Whatever else the page puts in the arguments (a `path` of its own) is never
 * sent, and a File the page made itself has no path, so it is refused here.
 */
function fileDropped(invoke: Invoke, pathForFile: PathForFile) {
  return async (args?: unknown): Promise<unknown> => {
    const { file, purpose } = (args ?? {}) as { file?: unknown; purpose?: unknown };
    // No instanceof check: a File crossing the context bridge may come from the page's realm. webUtils
    // itself tells a real dropped file (its path) from anything else ('' or an exception).
    let path = '';
    try {
      path = file !== null && typeof file === 'object' ? pathForFile(file as File) : '';
    } catch {
      path = '';
    }
    if (typeof path !== 'string') path = '';
    if (!path) return NOT_A_DROPPED_FILE;
    return invoke('app:fileDropped', { purpose, path });
  };
}

export function buildDeskApi(invoke: Invoke, subscribe: Subscribe, pathForFile: PathForFile = () => ''): DeskApi {
  const desk: Record<string, Readonly<Record<string, unknown>>> = {};
  for (const area of Object.keys(IPC_METHODS) as Area[]) {
    const methods: Record<string, (args?: unknown) => Promise<unknown>> = {};
    for (const verb of IPC_METHODS[area] as readonly string[]) {
      const channel = `${area}:${verb}`;
      // A fresh closure per method: the renderer cannot pick the channel.
      methods[verb] = channel === 'app:fileDropped' ? fileDropped(invoke, pathForFile) : (args?: unknown) => invoke(channel, args);
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
