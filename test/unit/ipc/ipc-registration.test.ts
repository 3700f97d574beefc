// main/ipc/register.ts: one ipcMain handler per channel, each behind the sender check.
import { describe, expect, it, vi } from 'vitest';
import { EVENT_CHANNELS, IPC_CHANNELS } from '../../../contract/api';
import { createDeskEvents } from '../../../main/desk/events';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { createCapturingLogger } from '../../../main/log';
import { recordingServices } from './fake-services';
import { VALID_ARGS } from './valid-args';

vi.mock('electron', () => ({ ipcMain: { handle: () => undefined, removeHandler: () => undefined } }));
const { FORBIDDEN_SENDER, forwardEventsToWindow, registerIpcHandlers } = await import('../../../main/ipc/register');

type Listener = (event: unknown, args: unknown) => Promise<unknown>;

function fakeIpc() {
  const handlers = new Map<string, Listener>();
  return {
    handlers,
    ipc: { handle: (channel: string, fn: Listener) => void handlers.set(channel, fn), removeHandler: (channel: string) => void handlers.delete(channel) },
  };
}

const appFrame = { url: 'app://desk/index.html', parent: null };

describe('registerIpcHandlers', () => {
  it('registers exactly the contract channels and removes them again', () => {
    const { handlers, ipc } = fakeIpc();
    const off = registerIpcHandlers(createIpcHandlers(recordingServices().services), { origins: ['app://desk'], webContentsIds: new Set([7]) }, undefined, ipc as never);
    expect([...handlers.keys()].sort()).toEqual([...IPC_CHANNELS].sort());
    off();
    expect(handlers.size).toBe(0);
  });

  it.each([
    ['a foreign origin', { sender: { id: 7 }, senderFrame: { url: 'https://evil.example/', parent: null } }],
    ['an iframe of the app', { sender: { id: 7 }, senderFrame: { url: 'app://desk/frame.html', parent: appFrame } }],
    ['an iframe from elsewhere inside the app window', { sender: { id: 7 }, senderFrame: { url: 'https://evil.example/ad.html', parent: appFrame } }],
    ['a null frame', { sender: { id: 7 }, senderFrame: null }],
    ['an undefined frame', { sender: { id: 7 }, senderFrame: undefined }],
    ['a window the app did not create', { sender: { id: 8 }, senderFrame: appFrame }],
    ['a file:// page', { sender: { id: 7 }, senderFrame: { url: 'file:///tmp/x.html', parent: null } }],
  ])('refuses %s on every channel without reaching the service', async (_name, event) => {
    const { handlers, ipc } = fakeIpc();
    const { services, calls } = recordingServices();
    const log = createCapturingLogger();
    registerIpcHandlers(createIpcHandlers(services), { origins: ['app://desk'], webContentsIds: new Set([7]) }, log, ipc as never);
    expect(IPC_CHANNELS.length).toBeGreaterThan(50);
    for (const channel of IPC_CHANNELS) {
      const handler = handlers.get(channel);
      expect(handler, channel).toBeDefined();
      // Valid arguments, so nothing but the sender check can refuse.
      await expect(handler?.(event, VALID_ARGS[channel]), channel).resolves.toEqual({ ok: false, error: FORBIDDEN_SENDER });
    }
    expect(calls).toEqual([]);
    // One warning per refusal, naming the channel (and no payload).
    expect(log.raw).toHaveLength(IPC_CHANNELS.length);
    IPC_CHANNELS.forEach((channel, i) => expect(log.raw[i]).toContain(`"channel":"${channel}"`));
  });

  it('lets the app window through on every channel', async () => {
    const { handlers, ipc } = fakeIpc();
    const { services, calls } = recordingServices();
    registerIpcHandlers(createIpcHandlers(services), { origins: ['app://desk'], webContentsIds: new Set([7]) }, undefined, ipc as never);
    for (const channel of IPC_CHANNELS) {
      await expect(handlers.get(channel)?.({ sender: { id: 7 }, senderFrame: appFrame }, VALID_ARGS[channel]), channel).resolves.toEqual({ ok: true, data: { reached: channel } });
    }
    expect(calls.map((c) => c.channel)).toEqual([...IPC_CHANNELS]);
  });

  it('lets the app window through', async () => {
    const { handlers, ipc } = fakeIpc();
    const { services, calls } = recordingServices();
    registerIpcHandlers(createIpcHandlers(services), { origins: ['app://desk'], webContentsIds: new Set([7]) }, undefined, ipc as never);
    await expect(handlers.get('app:info')?.({ sender: { id: 7 }, senderFrame: appFrame }, undefined)).resolves.toEqual({ ok: true, data: { reached: 'app:info' } });
    expect(calls).toHaveLength(1);
  });
});

describe('forwardEventsToWindow', () => {
  it('sends each event on its contract channel to the live window only', () => {
    const events = createDeskEvents();
    const send = vi.fn();
    let destroyed = false;
    forwardEventsToWindow(events, () => ({ send, isDestroyed: () => destroyed }));
    events.emit('menuCommand', { command: 'import-csv' });
    expect(send).toHaveBeenCalledWith(EVENT_CHANNELS.menuCommand, { command: 'import-csv' });
    destroyed = true;
    events.emit('menuCommand', { command: 'about' });
    expect(send).toHaveBeenCalledTimes(1);
  });
});
