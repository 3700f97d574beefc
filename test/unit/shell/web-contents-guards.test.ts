// guardWebContents on a fake webContents: navigation away from the app's origin is prevented (main
// frame, redirects and subframes), window.open is denied for every URL (an external https link is
// NOT handed to the OS browser: the app opens nothing outside itself), and <webview> never attaches.
import { describe, expect, it, vi } from 'vitest';
import { guardWebContents } from '../../../main/shell/web-contents-guards';
import { trustedOrigins } from '../../../main/shell/origins';

type Listener = (...args: unknown[]) => unknown;

/** Records the listeners and the window-open handler; any other use of the webContents throws. */
function fakeContents() {
  const listeners = new Map<string, Listener[]>();
  let openHandler: ((details: unknown) => unknown) | undefined;
  const used: string[] = [];
  const contents = {
    on(event: string, listener: Listener) {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return contents;
    },
    setWindowOpenHandler(handler: (details: unknown) => unknown) {
      openHandler = handler;
    },
  };
  const guarded = new Proxy(contents, {
    get(target, key, receiver) {
      used.push(String(key));
      if (!(key in target)) throw new Error(`guardWebContents used webContents.${String(key)}`);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  const emit = (event: string, ...args: unknown[]) => {
    for (const listener of listeners.get(event) ?? []) listener(...args);
  };
  return {
    guarded,
    listeners,
    used,
    emit,
    openWindow: (url: string) => {
      if (!openHandler) throw new Error('no window open handler');
      return openHandler({ url, frameName: '', features: '', disposition: 'foreground-tab', referrer: { url: '', policy: 'no-referrer' }, postBody: undefined });
    },
  };
}

const preventable = (url?: string) => ({ preventDefault: vi.fn(), ...(url ? { url } : {}) });

const FOREIGN = [
  'https://evil.example/',
  'https://evil.example/login?next=app://desk/',
  'http://localhost:5173/',
  'file:///etc/passwd',
  'app://other/index.html',
  'app://desk.evil/index.html',
  'app://desk:8080/index.html',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'about:blank',
  'not a url',
];

function setup(origins = trustedOrigins(undefined, true)) {
  const fake = fakeContents();
  const log = { warn: vi.fn() };
  guardWebContents(fake.guarded as never, origins, log);
  return { ...fake, log };
}

describe('guardWebContents', () => {
  it('attaches to navigation, redirects, frame navigation and webview attachment, and sets a window-open handler', () => {
    const { listeners, used } = setup();
    expect([...listeners.keys()].sort()).toEqual(['will-attach-webview', 'will-frame-navigate', 'will-navigate', 'will-redirect']);
    expect(new Set(used)).toEqual(new Set(['on', 'setWindowOpenHandler']));
  });

  it.each(FOREIGN)('prevents navigating the page to %s (will-navigate, will-redirect, will-frame-navigate)', (url) => {
    const { emit } = setup();
    const navigate = preventable(url);
    emit('will-navigate', navigate, url, false, true);
    expect(navigate.preventDefault).toHaveBeenCalled();
    const redirect = preventable(url);
    emit('will-redirect', redirect, url, false, true);
    expect(redirect.preventDefault).toHaveBeenCalled();
    // Electron passes only the details event, with the URL on it, to will-frame-navigate (any frame).
    const frame = preventable(url);
    emit('will-frame-navigate', frame);
    expect(frame.preventDefault).toHaveBeenCalled();
  });

  it('lets the app move inside its own origin', () => {
    const { emit, log } = setup();
    for (const url of ['app://desk/index.html', 'app://desk/index.html#/history?status=FAILED', 'APP://DESK/index.html']) {
      const navigate = preventable(url);
      emit('will-navigate', navigate, url, false, true);
      const frame = preventable(url);
      emit('will-frame-navigate', frame);
      expect(navigate.preventDefault, url).not.toHaveBeenCalled();
      expect(frame.preventDefault, url).not.toHaveBeenCalled();
    }
    expect(log.warn).not.toHaveBeenCalled();
  });

  it('in development also allows the dev server origin, and nothing else', () => {
    const { emit } = setup(trustedOrigins('http://localhost:5173/', false));
    const dev = preventable('http://localhost:5173/#/batches');
    emit('will-navigate', dev, 'http://localhost:5173/#/batches', false, true);
    expect(dev.preventDefault).not.toHaveBeenCalled();
    const other = preventable('http://localhost:5174/');
    emit('will-navigate', other, 'http://localhost:5174/', false, true);
    expect(other.preventDefault).toHaveBeenCalled();
  });

  it('denies window.open for every URL, external https included, and opens nothing elsewhere', () => {
    const { openWindow, used } = setup();
    const usedBefore = used.length;
    for (const url of ['https://docs.example.com/payouts', 'http://example.com', 'app://desk/index.html', 'about:blank', 'mailto:ops@example.com', '']) {
      expect(openWindow(url), url).toEqual({ action: 'deny' });
    }
    // The handler neither touches the webContents nor reaches for shell.openExternal (the module
    // has no shell at all: security-checklist item 15 keeps openExternal out of the code base).
    expect(used.length).toBe(usedBefore);
  });

  it('prevents every <webview> attachment', () => {
    const { emit } = setup();
    const attach = preventable();
    const webPreferences = { nodeIntegration: true };
    emit('will-attach-webview', attach, webPreferences, { src: 'https://evil.example/', instanceId: '1' });
    expect(attach.preventDefault).toHaveBeenCalledOnce();
  });

  it('logs what it blocked with the scheme only, never the URL (a URL may carry a token)', () => {
    const { emit, openWindow, log } = setup();
    emit('will-navigate', preventable(), 'https://evil.example/cb?token=abc123', false, true);
    openWindow('https://evil.example/share?token=abc123');
    emit('will-attach-webview', preventable(), {}, {});
    expect(log.warn.mock.calls).toEqual([
      ['blocked navigation', { origin: 'https:' }],
      ['blocked window.open', { origin: 'https:' }],
      ['blocked webview attach'],
    ]);
  });

  it('works without a logger', () => {
    const fake = fakeContents();
    guardWebContents(fake.guarded as never, ['app://desk']);
    const navigate = preventable();
    expect(() => fake.emit('will-navigate', navigate, 'https://evil.example/', false, true)).not.toThrow();
    expect(navigate.preventDefault).toHaveBeenCalled();
    expect(fake.openWindow('https://evil.example/')).toEqual({ action: 'deny' });
  });
});
