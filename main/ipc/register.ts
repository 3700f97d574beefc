// The only file that touches ipcMain. It registers one handler per contract channel, checks every
// sender before the handler runs, and forwards service events to the app's own window.
import { ipcMain, type IpcMain, type WebContents } from 'electron';
import { EVENT_CHANNELS, IPC_CHANNELS, type IpcError, type IpcHandlerMap, type Result, type Unsubscribe } from '../../contract/api';
import type { Logger } from '../log';
import type { DeskEvents } from '../desk/events';
import { checkIpcSender, type IpcEventLike } from '../shell/ipc-sender';

export interface SenderTrust {
  origins: readonly string[];
  /** webContents ids of windows this app created; filled as windows open. */
  webContentsIds: Set<number>;
}

export const FORBIDDEN_SENDER: IpcError = {
  code: 'FORBIDDEN_SENDER',
  message: 'This request did not come from the Payout Desk window and was refused.',
  retryable: false,
};

/** The handler ipcMain runs for one channel: sender check, then the shared handler. */
export function guardedHandler(channel: string, handle: (args: unknown) => Promise<Result<unknown>>, trust: SenderTrust, log?: Logger) {
  return async (event: IpcEventLike, args: unknown): Promise<Result<unknown>> => {
    const verdict = checkIpcSender(event, trust.origins, trust.webContentsIds);
    if (!verdict.trusted) {
      log?.warn('ipc message refused', { channel, reason: verdict.reason });
      return { ok: false, error: FORBIDDEN_SENDER };
    }
    return handle(args);
  };
}

export function registerIpcHandlers(handlers: IpcHandlerMap, trust: SenderTrust, log?: Logger, ipc: Pick<IpcMain, 'handle' | 'removeHandler'> = ipcMain): Unsubscribe {
  for (const channel of IPC_CHANNELS) {
    ipc.handle(channel, guardedHandler(channel, handlers[channel], trust, log));
  }
  return () => IPC_CHANNELS.forEach((channel) => ipc.removeHandler(channel));
}

/** Sends every service event to the current main window (nothing else ever receives them). */
export function forwardEventsToWindow(events: DeskEvents, target: () => Pick<WebContents, 'send' | 'isDestroyed'> | null): Unsubscribe {
  return events.onAny((name, payload) => {
    const contents = target();
    if (contents && !contents.isDestroyed()) contents.send(EVENT_CHANNELS[name], payload);
  });
}
