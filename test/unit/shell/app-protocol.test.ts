// The app:// resolver maps URLs to files under the renderer folder and nothing else.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAppAsset, serveAppRequest } from '../../../main/shell/app-protocol';
import { CSP_HEADER_POLICY, cspProblems } from '../../../main/shell/csp';

const ROOT = '/srv/desk/renderer';

describe('resolveAppAsset', () => {
  it('serves index.html for the root and files below the renderer folder', () => {
    expect(resolveAppAsset(ROOT, 'app://desk/')).toEqual({ ok: true, filePath: `${ROOT}/index.html`, mimeType: 'text/html; charset=utf-8' });
    expect(resolveAppAsset(ROOT, 'app://desk/assets/index-abc.js?v=1#x')).toMatchObject({ ok: true, filePath: `${ROOT}/assets/index-abc.js` });
    expect(resolveAppAsset(ROOT, 'app://desk/fonts/mdi%20icons.woff2')).toMatchObject({ ok: true, filePath: `${ROOT}/fonts/mdi icons.woff2`, mimeType: 'font/woff2' });
  });

  it.each([
    ['encoded slash traversal', 'app://desk/..%2f..%2fetc/passwd.js'],
    ['encoded backslash traversal', 'app://desk/..%5c..%5cwindows%5cwin.ini.js'],
    ['double-encoded dots decoded once into a dot segment', 'app://desk/assets/%2e%2e%2f%2e%2e%2fsecret.js'],
    ['NUL byte', 'app://desk/index.html%00.js'],
    ['empty segment (absolute path smuggling)', 'app://desk//etc/passwd.js'],
    ['Windows drive letter', 'app://desk/C:/Windows/win.ini.js'],
    ['malformed escape', 'app://desk/%E0%A4%A.js'],
  ])('refuses %s', (_name, url) => {
    const result = resolveAppAsset(ROOT, url);
    expect(result.ok).toBe(false);
  });

  it('collapses plain dot segments inside the root (the URL parser does this before we see it)', () => {
    expect(resolveAppAsset(ROOT, 'app://desk/assets/../../../index.html')).toMatchObject({ ok: true, filePath: `${ROOT}/index.html` });
  });

  it.each([
    ['another host', 'app://evil/index.html', 403],
    ['another scheme', 'file:///srv/desk/renderer/index.html', 403],
    ['https', 'https://desk/index.html', 403],
    ['credentials', 'app://user:pw@desk/index.html', 403],
    ['not a URL', 'desk/index.html', 400],
    ['unknown file type', 'app://desk/desk.db', 404],
  ])('refuses %s', (_name, url, status) => {
    expect(resolveAppAsset(ROOT, url)).toMatchObject({ ok: false, status });
  });
});

describe('serveAppRequest', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'desk-protocol-'));
    await mkdir(join(dir, 'renderer/assets'), { recursive: true });
    await writeFile(join(dir, 'renderer/index.html'), '<!doctype html><title>desk</title>');
    await writeFile(join(dir, 'renderer/assets/app.js'), 'console.log(1)');
    await writeFile(join(dir, 'secret.js'), 'SECRET');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('answers with the file, its type and the strict CSP header', async () => {
    const res = await serveAppRequest(join(dir, 'renderer'), { url: 'app://desk/', method: 'GET' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(CSP_HEADER_POLICY);
    expect(cspProblems(res.headers.get('content-security-policy') ?? '')).toEqual([]);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toContain('<title>desk</title>');
  });

  it('never serves a file next to the renderer folder', async () => {
    const res = await serveAppRequest(join(dir, 'renderer'), { url: 'app://desk/..%2fsecret.js', method: 'GET' });
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('');
  });

  it('answers 404 for a missing file and 405 for other methods', async () => {
    expect((await serveAppRequest(join(dir, 'renderer'), { url: 'app://desk/missing.js', method: 'GET' })).status).toBe(404);
    expect((await serveAppRequest(join(dir, 'renderer'), { url: 'app://desk/assets/app.js', method: 'POST' })).status).toBe(405);
  });
});
