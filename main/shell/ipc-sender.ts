// Checks that an IPC message came from the app's own window (Electron security checklist item 17):
// a known webContents, its main frame (not an iframe), loaded from a trusted origin.
import { isTrustedUrl } from './origins';

export interface SenderFrameLike {
  url: string;
  parent: SenderFrameLike | null;
}

export interface IpcEventLike {
  sender: { id: number };
  senderFrame: SenderFrameLike | null | undefined;
}

export type SenderVerdict = { trusted: true } | { trusted: false; reason: string };

export function checkIpcSender(event: IpcEventLike, origins: readonly string[], trustedWebContentsIds: ReadonlySet<number>): SenderVerdict {
  const frame = event.senderFrame;
  // A null frame: the frame navigated away or was destroyed before the message was handled.
  if (!frame) return { trusted: false, reason: 'no sender frame' };
  if (frame.parent !== null) return { trusted: false, reason: 'message from a subframe' };
  if (!trustedWebContentsIds.has(event.sender.id)) return { trusted: false, reason: 'message from a window the app did not create' };
  if (!isTrustedUrl(frame.url, origins)) return { trusted: false, reason: 'message from a foreign origin' };
  return { trusted: true };
}
