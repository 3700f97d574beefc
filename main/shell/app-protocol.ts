// The renderer is served from app://desk/, not file://: a file:// page would share an origin with
// every file on disk. The resolver is a pure function so path traversal is tested without Electron.
import { readFile } from 'node:fs/promises';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Protocol } from 'electron';
import { CSP_HEADER_POLICY } from './csp';

export const APP_SCHEME = 'app';
export const APP_HOST = 'desk';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

const MIME_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.eot': 'application/vnd.ms-fontobject',
};

export type AssetResolution =
  | { ok: true; filePath: string; mimeType: string }
  | { ok: false; status: 400 | 403 | 404; reason: string };

/** Maps an app://desk/... URL to a file under rootDir, refusing anything that could leave it. */
export function resolveAppAsset(rootDir: string, requestUrl: string): AssetResolution {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return { ok: false, status: 400, reason: 'not a URL' };
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return { ok: false, status: 403, reason: 'foreign origin' };
  if (url.username || url.password || url.port) return { ok: false, status: 403, reason: 'credentials or port in URL' };
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return { ok: false, status: 400, reason: 'malformed escape' };
  }
  // Reject rather than normalise: a legitimate asset path never contains these.
  if (pathname.includes('\0') || pathname.includes('\\') || /(^|\/)\.\.?(\/|$)/.test(pathname) || pathname.includes('//')) {
    return { ok: false, status: 403, reason: 'path traversal' };
  }
  if (/^\/?[a-zA-Z]:/.test(pathname.slice(1))) return { ok: false, status: 403, reason: 'drive letter' };
  const relativePath = pathname === '/' || pathname === '' ? 'index.html' : pathname.replace(/^\/+/, '');
  const root = resolve(rootDir);
  const filePath = resolve(root, relativePath);
  const inside = relative(root, filePath);
  if (!inside || inside.startsWith('..') || isAbsolute(inside) || !filePath.startsWith(root + sep)) {
    return { ok: false, status: 403, reason: 'outside the renderer folder' };
  }
  const mimeType = MIME_TYPES[extname(filePath).toLowerCase()];
  if (!mimeType) return { ok: false, status: 404, reason: 'unknown file type' };
  return { ok: true, filePath, mimeType };
}

/** Must run before app.whenReady(): app:// behaves like https (secure context, fetch, no file access). */
export function registerAppScheme(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
  ]);
}

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CSP_HEADER_POLICY,
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
};

/** Answers one app:// request: the file with the CSP header, or an empty error response. */
export async function serveAppRequest(rootDir: string, request: { url: string; method: string }): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405 });
  const resolved = resolveAppAsset(rootDir, request.url);
  if (!resolved.ok) return new Response(null, { status: resolved.status });
  try {
    const body = await readFile(resolved.filePath);
    return new Response(request.method === 'HEAD' ? null : body, {
      status: 200,
      headers: { 'content-type': resolved.mimeType, ...SECURITY_HEADERS },
    });
  } catch {
    return new Response(null, { status: 404 });
  }
}

export function handleAppProtocol(protocol: Pick<Protocol, 'handle'>, rootDir: string): void {
  protocol.handle(APP_SCHEME, (request) => serveAppRequest(rootDir, request));
}
