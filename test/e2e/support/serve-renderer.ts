// Serves the built renderer (out/renderer) to the page under a fixed origin, without a server:
// every request to that origin is answered from disk through Playwright's routing.
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import type { Page } from '@playwright/test';

export const RENDERER_ORIGIN = 'http://desk.test';
const ROOT = resolve('out/renderer');

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.eot': 'application/vnd.ms-fontobject',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export async function serveRenderer(page: Page): Promise<void> {
  await page.route(`${RENDERER_ORIGIN}/**`, async (route) => {
    const path = decodeURIComponent(new URL(route.request().url()).pathname);
    const file = normalize(join(ROOT, path === '/' ? 'index.html' : path));
    if (!file.startsWith(ROOT)) return route.fulfill({ status: 403 });
    try {
      const body = await readFile(file);
      return await route.fulfill({ status: 200, body, contentType: TYPES[extname(file)] ?? 'application/octet-stream' });
    } catch {
      return route.fulfill({ status: 404, body: 'not found' });
    }
  });
}
