// The preload exposes exactly window.desk: one frozen object per contract area holding named
// functions, plus event subscriptions. No ipcRenderer, no generic invoke/send reaches the page.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { EVENT_CHANNELS, IPC_METHODS, type DeskApi } from '../../../contract/api';

const exposed = new Map<string, unknown>();
const invoke = vi.fn(async (..._args: unknown[]) => ({ ok: true, data: null }));
const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
// Electron's webUtils knows the real path of Files the user dropped; any other File has none ('').
const droppedPaths = new WeakMap<File, string>();

vi.mock('electron', () => ({
  webUtils: { getPathForFile: (file: File) => droppedPaths.get(file) ?? '' },
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
  ipcRenderer: {
    invoke: (...args: unknown[]) => invoke(...args),
    on: (channel: string, fn: (...args: unknown[]) => void) => {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel)?.add(fn);
    },
    removeListener: (channel: string, fn: (...args: unknown[]) => void) => listeners.get(channel)?.delete(fn),
    send: () => {
      throw new Error('the preload must not use send');
    },
  },
}));

async function loadDesk(): Promise<DeskApi> {
  await import('../../../preload/index');
  return exposed.get('desk') as DeskApi;
}

describe('preload bridge (security checklist 20: do not expose Electron APIs to web content)', () => {
  beforeEach(() => invoke.mockClear());

  it('exposes only window.desk', async () => {
    await loadDesk();
    expect([...exposed.keys()]).toEqual(['desk']);
  });

  it('has exactly the contract areas plus events, each holding only named functions', async () => {
    const desk = await loadDesk();
    expect(Object.keys(desk).sort()).toEqual([...Object.keys(IPC_METHODS), 'events'].sort());
    for (const [area, verbs] of Object.entries(IPC_METHODS)) {
      const api = (desk as unknown as Record<string, Record<string, unknown>>)[area] ?? {};
      expect(Object.keys(api).sort()).toEqual([...verbs].sort());
      for (const fn of Object.values(api)) expect(typeof fn).toBe('function');
      expect(Object.isFrozen(api)).toBe(true);
    }
    expect(Object.keys(desk.events).sort()).toEqual(Object.keys(EVENT_CHANNELS).sort());
    expect(Object.isFrozen(desk)).toBe(true);
  });

  it('never hands out ipcRenderer or a generic channel function', async () => {
    const desk = await loadDesk();
    const seen = JSON.stringify(Object.fromEntries(Object.entries(desk).map(([k, v]) => [k, Object.keys(v as object)])));
    for (const forbidden of ['ipcRenderer', 'invoke', 'send', 'sendSync', 'on', 'postMessage', 'require', 'process']) {
      expect(seen).not.toMatch(new RegExp(`"${forbidden}"`));
    }
  });

  it('maps each method to its own area:verb channel with the argument object', async () => {
    const desk = await loadDesk();
    const args = { idPayout: 'p-1' };
    await desk.payouts.get(args);
    expect(invoke).toHaveBeenCalledWith('payouts:get', args);
    await desk.profiles.list();
    expect(invoke).toHaveBeenLastCalledWith('profiles:list', undefined);
  });

  it('a dropped file reaches main as the path webUtils reads from the File, never a path the page names', async () => {
    const desk = await loadDesk();
    const dropped = new File(['id,amount\n'], 'payouts.csv');
    droppedPaths.set(dropped, '/home/finance/payouts.csv');
    await desk.app.fileDropped({ file: dropped, purpose: 'csv' });
    expect(invoke).toHaveBeenLastCalledWith('app:fileDropped', { purpose: 'csv', path: '/home/finance/payouts.csv' });

    // A path of the page's own is dropped on the floor; the File's path is what goes.
    await desk.app.fileDropped({ file: dropped, purpose: 'key', path: '/etc/shadow' } as unknown as Parameters<DeskApi['app']['fileDropped']>[0]);
    expect(invoke).toHaveBeenLastCalledWith('app:fileDropped', { purpose: 'key', path: '/home/finance/payouts.csv' });

    // A File the page made itself, or no File at all, has no path: refused without a call to main.
    invoke.mockClear();
    const made = new File(['-----BEGIN PRIVATE KEY-----'], 'key.pem');
    const forged = { name: 'key.pem', path: '/etc/shadow' } as unknown as File;
    for (const file of [made, forged]) {
      expect(await desk.app.fileDropped({ file, purpose: 'key' })).toMatchObject({ ok: false, error: { code: 'FILE_TYPE' } });
    }
    expect(invoke).not.toHaveBeenCalled();
  });

  it('event subscriptions deliver the payload only and can be undone', async () => {
    const desk = await loadDesk();
    const got: unknown[] = [];
    const off = desk.events.batchProgress((p) => got.push(p));
    const channel = EVENT_CHANNELS.batchProgress;
    const fakeEvent = { sender: 'ipc-internals' };
    for (const fn of listeners.get(channel) ?? []) fn(fakeEvent, { batchId: 'b1' });
    expect(got).toEqual([{ batchId: 'b1' }]);
    off();
    expect(listeners.get(channel)?.size ?? 0).toBe(0);
    expect(() => desk.events.notification('nope' as unknown as () => void)).toThrow(TypeError);
  });
});
