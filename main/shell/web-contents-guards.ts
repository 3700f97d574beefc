// Navigation, new windows, <webview> and permissions: all denied (Electron security checklist
// items 5, 12, 13, 14). Written against small structural types so tests drive them without Electron.
import type { Session, WebContents } from 'electron';
import { isTrustedUrl } from './origins';

type PreventableEvent = { preventDefault(): void };

export interface GuardLog {
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** will-navigate / will-redirect: only moves inside the app's own origin are allowed. */
export function navigationGuard(origins: readonly string[], log?: GuardLog) {
  return (event: PreventableEvent, url: string): void => {
    if (isTrustedUrl(url, origins)) return;
    event.preventDefault();
    log?.warn('blocked navigation', { origin: safeOrigin(url) });
  };
}

/** setWindowOpenHandler: no new windows, ever (links to the web are not part of this app). */
export function denyWindowOpen(log?: GuardLog) {
  return (details: { url: string }): { action: 'deny' } => {
    log?.warn('blocked window.open', { origin: safeOrigin(details.url) });
    return { action: 'deny' };
  };
}

/** will-attach-webview: the app uses no <webview>, so any attempt is refused. */
export function denyWebviewAttach(log?: GuardLog) {
  return (event: PreventableEvent): void => {
    event.preventDefault();
    log?.warn('blocked webview attach');
  };
}

export function guardWebContents(contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>, origins: readonly string[], log?: GuardLog): void {
  const onNavigate = navigationGuard(origins, log);
  contents.on('will-navigate', onNavigate);
  contents.on('will-redirect', onNavigate);
  contents.on('will-frame-navigate', (event) => onNavigate(event, event.url));
  contents.on('will-attach-webview', denyWebviewAttach(log));
  contents.setWindowOpenHandler(denyWindowOpen(log));
}

/** Every permission request (camera, geolocation, notifications from web content, …) is refused. */
export function denyAllPermissions(
  session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'setDevicePermissionHandler'>,
): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return 'invalid';
  }
}
