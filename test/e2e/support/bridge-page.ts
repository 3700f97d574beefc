// Connects a Playwright page to a set of IPC handlers running in the test process, the way the
// preload connects the real window to ipcMain: `window.desk` gets one named function per contract
// method (built from the same channel lists), and service events are pushed into the page.
import type { Page } from '@playwright/test';
import { EVENT_CHANNELS, IPC_METHODS, type Channel, type EventName, type IpcHandlerMap, type Unsubscribe } from '../../../contract/api';
import { RENDERER_ORIGIN, serveRenderer } from './serve-renderer';

export interface EventSource {
  onAny(listener: <E extends EventName>(name: E, payload: unknown) => void): Unsubscribe;
}

export interface BridgeOptions {
  handlers: IpcHandlerMap;
  events?: EventSource;
  /** Called with every channel invoked, for tests that assert traffic. */
  onInvoke?: (channel: string) => void;
}

type Listener = (payload: unknown) => void;

/** Runs in the page before the app: builds window.desk from the channel lists. */
function installDesk(spec: { methods: Record<string, readonly string[]>; events: Record<string, string> }): void {
  const w = window as unknown as Record<string, unknown>;
  const invoke = w['__deskInvoke'] as (channel: string, args: unknown) => Promise<unknown>;
  const listeners = new Map<string, Set<Listener>>();
  w['__deskEmit'] = (channel: string, payload: unknown) => {
    listeners.get(channel)?.forEach((l) => l(payload));
  };
  const desk: Record<string, unknown> = {};
  for (const [area, verbs] of Object.entries(spec.methods)) {
    const methods: Record<string, (args?: unknown) => Promise<unknown>> = {};
    for (const verb of verbs) methods[verb] = (args?: unknown) => invoke(`${area}:${verb}`, args);
    // Like the preload in a browser without Electron's webUtils: a dropped File has no path to hand main.
    if (area === 'app') {
      methods['fileDropped'] = async () => ({
        ok: false,
        error: { code: 'FILE_TYPE', message: 'Only a file dropped from this computer can be used here', retryable: false },
      });
    }
    desk[area] = Object.freeze(methods);
  }
  const events: Record<string, (l: Listener) => () => void> = {};
  for (const [name, channel] of Object.entries(spec.events)) {
    events[name] = (listener: Listener) => {
      const set = listeners.get(channel) ?? new Set<Listener>();
      set.add(listener);
      listeners.set(channel, set);
      return () => set.delete(listener);
    };
  }
  desk['events'] = Object.freeze(events);
  w['desk'] = Object.freeze(desk);
}

export async function bridgePage(page: Page, options: BridgeOptions): Promise<Unsubscribe> {
  const { handlers } = options;
  await page.exposeBinding('__deskInvoke', async (_source, channel: string, args: unknown) => {
    options.onInvoke?.(channel);
    if (!Object.hasOwn(handlers, channel)) {
      return { ok: false, error: { code: 'UNKNOWN_CHANNEL', message: `no handler for ${channel}`, retryable: false } };
    }
    return handlers[channel as Channel](args);
  });
  await page.addInitScript(installDesk, { methods: IPC_METHODS, events: EVENT_CHANNELS });
  await serveRenderer(page);
  const stop =
    options.events?.onAny((name, payload) => {
      page
        .evaluate(
          ([channel, p]) => {
            const emit = (window as unknown as Record<string, unknown>)['__deskEmit'] as ((c: string, p: unknown) => void) | undefined;
            emit?.(channel, p);
          },
          [EVENT_CHANNELS[name], payload] as const,
        )
        .catch(() => undefined); // the page may be navigating or closed; events are hints, state is re-read
    }) ?? (() => undefined);
  return stop;
}

export const APP_URL = `${RENDERER_ORIGIN}/index.html`;
