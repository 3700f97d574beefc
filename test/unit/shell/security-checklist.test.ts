// Electron's security checklist (https://www.electronjs.org/docs/latest/tutorial/security), one test
// per item, each checking this app's own code or build output without launching Electron.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { packagingPolicyProblems, loadBuilderConfig, REQUIRED_FUSES } from '../../../scripts/check-electron-builder';
import { APP_ENTRY_URL, resolveAppAsset } from '../../../main/shell/app-protocol';
import { CSP_META_POLICY, cspFromHtml, cspProblems } from '../../../main/shell/csp';
import { checkIpcSender } from '../../../main/shell/ipc-sender';
import { denyAllPermissions, denyWebviewAttach, denyWindowOpen, navigationGuard } from '../../../main/shell/web-contents-guards';

vi.mock('electron', () => ({ BrowserWindow: class {} }));
const { secureWebPreferences } = await import('../../../main/window');

const root = resolve(import.meta.dirname, '../../..');
const builtHtml = join(root, 'out/renderer/index.html');
const prefs = secureWebPreferences('/app/preload/index.cjs');
const origins = ['app://desk'];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|vue|html)$/.test(f))
    .map((f) => join(root, dir, f))
    .filter((f) => statSync(f).isFile());
}

beforeAll(() => {
  // The test command builds first; a lone run of this file builds the renderer itself.
  if (!existsSync(builtHtml)) execFileSync(process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build'], { cwd: root, stdio: 'ignore' });
}, 180_000);

describe('Electron security checklist', () => {
  it('1. only loads secure content: the app URL is app://desk and the CSP names no http(s) source', () => {
    expect(APP_ENTRY_URL).toBe('app://desk/index.html');
    const csp = cspFromHtml(readFileSync(builtHtml, 'utf8')) ?? '';
    expect(csp).not.toMatch(/https?:|wss?:/);
  });

  it('2. no Node.js integration for web content (main frame, subframes, workers)', () => {
    expect(prefs.nodeIntegration).toBe(false);
    expect(prefs.nodeIntegrationInSubFrames).toBe(false);
    expect(prefs.nodeIntegrationInWorker).toBe(false);
  });

  it('3. context isolation is on', () => {
    expect(prefs.contextIsolation).toBe(true);
  });

  it('4. the renderer process is sandboxed', () => {
    expect(prefs.sandbox).toBe(true);
    expect(readFileSync(join(root, 'main/index.ts'), 'utf8')).toMatch(/app\.enableSandbox\(\)/);
  });

  it('5. every session permission request and check is refused', () => {
    const handlers: Record<string, (...args: never[]) => unknown> = {};
    denyAllPermissions({
      setPermissionRequestHandler: (h: unknown) => void (handlers['request'] = h as never),
      setPermissionCheckHandler: (h: unknown) => void (handlers['check'] = h as never),
      setDevicePermissionHandler: (h: unknown) => void (handlers['device'] = h as never),
    } as never);
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      const callback = vi.fn();
      (handlers['request'] as (...a: unknown[]) => void)({}, permission, callback, {});
      expect(callback).toHaveBeenCalledWith(false);
      expect((handlers['check'] as (...a: unknown[]) => unknown)({}, permission, 'app://desk', {})).toBe(false);
    }
    expect((handlers['device'] as (...a: unknown[]) => unknown)({ deviceType: 'usb' })).toBe(false);
  });

  it('6. webSecurity stays on', () => {
    expect(prefs.webSecurity).toBe(true);
  });

  it('7. a strict CSP is in the BUILT index.html (no remote scripts, no eval, no inline script)', () => {
    const html = readFileSync(builtHtml, 'utf8');
    const csp = cspFromHtml(html);
    expect(csp).not.toBeNull();
    expect(cspProblems(csp ?? '')).toEqual([]);
    expect(csp).toBe(CSP_META_POLICY);
    // Every script of the built page is a same-origin file; none is inline.
    for (const tag of html.match(/<script\b[^>]*>[\s\S]*?<\/script>/gi) ?? []) {
      expect(tag).toMatch(/\ssrc="\.?\/?assets\//);
      expect(tag.replace(/<script\b[^>]*>|<\/script>/gi, '').trim()).toBe('');
    }
  });

  it('8. allowRunningInsecureContent is off', () => {
    expect(prefs.allowRunningInsecureContent).toBe(false);
  });

  it('9. experimental features are off', () => {
    expect(prefs.experimentalFeatures).toBe(false);
  });

  it('10. enableBlinkFeatures is not used', () => {
    expect(prefs.enableBlinkFeatures).toBeUndefined();
    for (const file of [...sourceFiles('main'), ...sourceFiles('preload')]) {
      if (file.endsWith('.test.ts')) continue;
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/enableBlinkFeatures\s*:/);
    }
  });

  it('11. <webview allowpopups> cannot exist: the tag is disabled and no renderer source uses it', () => {
    expect(prefs.webviewTag).toBe(false);
    for (const file of sourceFiles('renderer')) expect(readFileSync(file, 'utf8'), file).not.toMatch(/<webview|allowpopups/i);
  });

  it('12. webview attachment is refused (will-attach-webview)', () => {
    const event = { preventDefault: vi.fn() };
    denyWebviewAttach()(event);
    expect(event.preventDefault).toHaveBeenCalledOnce();
  });

  it('13. navigation is limited to the app origin', () => {
    const guard = navigationGuard(origins);
    for (const url of ['https://evil.example/', 'file:///etc/passwd', 'http://localhost:5173/', 'app://other/index.html', 'javascript:alert(1)', 'not a url']) {
      const event = { preventDefault: vi.fn() };
      guard(event, url);
      expect(event.preventDefault, url).toHaveBeenCalledOnce();
    }
    const inside = { preventDefault: vi.fn() };
    guard(inside, 'app://desk/index.html#/history');
    expect(inside.preventDefault).not.toHaveBeenCalled();
  });

  it('14. new windows are never created', () => {
    for (const url of ['https://example.com', 'app://desk/index.html', 'about:blank']) expect(denyWindowOpen()({ url })).toEqual({ action: 'deny' });
  });

  it('15. shell.openExternal is never called (nothing opens untrusted content in the OS)', () => {
    for (const file of [...sourceFiles('main'), ...sourceFiles('preload'), ...sourceFiles('renderer')]) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/openExternal/);
    }
  });

  it('16. uses a current, supported Electron major', () => {
    const version = JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')) as { version: string };
    // Electron supports the latest three majors; 39 was current in autumn 2025.
    expect(Number(version.version.split('.')[0])).toBeGreaterThanOrEqual(39);
  });

  it('17. IPC senders are validated: foreign origins, subframes and null frames are refused', () => {
    const ids = new Set([1]);
    const main = { url: 'app://desk/index.html', parent: null };
    expect(checkIpcSender({ sender: { id: 1 }, senderFrame: main }, origins, ids)).toEqual({ trusted: true });
    expect(checkIpcSender({ sender: { id: 1 }, senderFrame: { url: 'https://evil.example/', parent: null } }, origins, ids).trusted).toBe(false);
    expect(checkIpcSender({ sender: { id: 1 }, senderFrame: { url: 'app://desk/x.html', parent: main } }, origins, ids).trusted).toBe(false);
    expect(checkIpcSender({ sender: { id: 1 }, senderFrame: null }, origins, ids).trusted).toBe(false);
    expect(checkIpcSender({ sender: { id: 2 }, senderFrame: main }, origins, ids).trusted).toBe(false);
  });

  it('18. the renderer is served from the app:// protocol, never file://, and the resolver refuses traversal', () => {
    const windowSource = readFileSync(join(root, 'main/window.ts'), 'utf8');
    expect(windowSource).not.toMatch(/loadFile\(|file:\/\//);
    // Dot segments in the URL itself are collapsed by the URL parser and stay inside the root …
    expect(resolveAppAsset('/srv/renderer', 'app://desk/../../etc/x.js')).toMatchObject({ ok: true, filePath: '/srv/renderer/etc/x.js' });
    // … and encoded ones are refused outright.
    expect(resolveAppAsset('/srv/renderer', 'app://desk/..%2f..%2fetc/passwd.js').ok).toBe(false);
  });

  it('19. fuses: RunAsNode, NODE_OPTIONS and inspect off; cookie encryption, asar integrity and asar-only on', async () => {
    const config = await loadBuilderConfig(root);
    expect(config.electronFuses).toMatchObject(REQUIRED_FUSES);
    expect(packagingPolicyProblems(config, root)).toEqual([]);
  });

  it('20. web content gets no Electron API: only the preload imports electron, and it exposes window.desk alone', () => {
    const preload = readFileSync(join(root, 'preload/index.ts'), 'utf8');
    expect(preload.match(/exposeInMainWorld\(/g)).toHaveLength(1);
    expect(preload).toMatch(/exposeInMainWorld\('desk', desk\)/);
    for (const file of sourceFiles('renderer')) expect(readFileSync(file, 'utf8'), file).not.toMatch(/from ['"]electron['"]|require\(['"]electron['"]\)/);
  });
});
