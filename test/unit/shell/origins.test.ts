// Which origins count as the app itself: app://desk always; the dev server's origin only in an
// unpackaged build started by `electron-vite dev` (ELECTRON_RENDERER_URL), nothing else ever.
import { describe, expect, it } from 'vitest';
import { isTrustedUrl, originOf, trustedOrigins } from '../../../main/shell/origins';

describe('trustedOrigins', () => {
  it('packaged: only app://desk, even when a dev server URL is in the environment', () => {
    expect(trustedOrigins(undefined, true)).toEqual(['app://desk']);
    expect(trustedOrigins('http://localhost:5173/', true)).toEqual(['app://desk']);
  });

  it('development: app://desk and the dev server origin (scheme, host, port; no path)', () => {
    expect(trustedOrigins('http://localhost:5173/', false)).toEqual(['app://desk', 'http://localhost:5173']);
    expect(trustedOrigins('http://127.0.0.1:5174/index.html?x=1#/history', false)).toEqual(['app://desk', 'http://127.0.0.1:5174']);
    expect(trustedOrigins('http://LOCALHOST:5173', false)).toEqual(['app://desk', 'http://localhost:5173']);
  });

  it('development without a dev server (a built renderer): only app://desk', () => {
    expect(trustedOrigins(undefined, false)).toEqual(['app://desk']);
    expect(trustedOrigins('', false)).toEqual(['app://desk']);
  });

  it('a dev server value that is no URL with a host adds nothing', () => {
    for (const value of ['localhost:5173', 'not a url', 'file:///tmp/index.html', 'about:blank']) {
      expect(trustedOrigins(value, false), value).toEqual(['app://desk']);
    }
  });
});

describe('originOf and isTrustedUrl', () => {
  const packaged = trustedOrigins(undefined, true);
  const dev = trustedOrigins('http://localhost:5173', false);

  it('computes scheme://host[:port] by hand for app:// (WHATWG would say "null")', () => {
    expect(new URL('app://desk/index.html').origin).toBe('null');
    expect(originOf('app://desk/index.html#/x')).toBe('app://desk');
    expect(originOf('https://Example.com:8443/a?b')).toBe('https://example.com:8443');
    expect(originOf('https://example.com:443/')).toBe('https://example.com');
  });

  it('has no origin for URLs without a host', () => {
    for (const url of ['file:///etc/passwd', 'about:blank', 'javascript:alert(1)', 'data:text/html,x', 'blob:app://desk/1', 'not a url', '']) {
      expect(originOf(url), url).toBeNull();
    }
  });

  it.each([
    ['app://desk/index.html', true, true],
    ['app://desk/assets/index.js', true, true],
    ['app://evil/index.html', false, false],
    ['app://desk.evil/index.html', false, false],
    ['app://desk:1/index.html', false, false],
    ['http://localhost:5173/', false, true],
    ['http://localhost:5174/', false, false],
    ['https://localhost:5173/', false, false],
    ['http://127.0.0.1:5173/', false, false],
    ['file:///app/renderer/index.html', false, false],
  ])('%s: trusted packaged %s, in development %s', (url, inPackaged, inDev) => {
    expect(isTrustedUrl(url, packaged)).toBe(inPackaged);
    expect(isTrustedUrl(url, dev)).toBe(inDev);
  });
});
