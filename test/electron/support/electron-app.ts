// Launches the built app (package.json "main" = out/main/index.js) in the real Electron binary with
// a fresh data folder, through Playwright's _electron. `whyNotRunnable()` names what stops these
// tests on this machine; the specs skip with that reason, or fail with it when
// PAYOUT_DESK_REQUIRE_ELECTRON=1 (the release workflow sets it: there the tests must really run).
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { _electron as electron, type ElectronApplication, type Page } from '@playwright/test';

export const ROOT = resolve(import.meta.dirname, '..', '..', '..');
export const MAIN_ENTRY = join(ROOT, 'out', 'main', 'index.js');
export const electronRequired = process.env['PAYOUT_DESK_REQUIRE_ELECTRON'] === '1';

/** The binary the way node_modules/electron (and scripts/start.mjs) finds it, or why there is none. */
function electronBinary(): { path: string } | { missing: string } {
  const dir = join(ROOT, 'node_modules', 'electron');
  const pathFile = join(dir, 'path.txt');
  const fetch = 'npm cannot download it here; where the network allows, `node node_modules/electron/install.js` fetches it';
  if (!existsSync(join(dir, 'package.json'))) return { missing: 'node_modules/electron is not installed (run npm ci)' };
  if (!existsSync(pathFile)) return { missing: `the Electron binary is not installed: node_modules/electron/path.txt is missing (${fetch})` };
  const binary = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  if (!existsSync(binary)) return { missing: `the Electron binary is not installed: ${binary} is missing (${fetch})` };
  return { path: binary };
}

/**
 * better-sqlite3 is not an N-API module: one build loads either in Node or in Electron, never both.
 * If it loads in this Node process, `npm ci` built it for Node, and the app would die at start-up.
 */
function nativeModulesBuiltForNode(): boolean {
  try {
    const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3') as new (file: string) => { close(): void };
    new Database(':memory:').close();
    return true;
  } catch {
    return false; // built for another ABI (Electron's), or absent: the launch itself tells which
  }
}

let cached: string | null | undefined;

/** Why the launch tests cannot run here, or null when they can. */
export function whyNotRunnable(): string | null {
  if (cached !== undefined) return cached;
  const binary = electronBinary();
  if ('missing' in binary) cached = binary.missing;
  else if (process.platform === 'linux' && !process.env['DISPLAY'] && !process.env['WAYLAND_DISPLAY'])
    cached = 'no display for Electron (DISPLAY is not set): run the tests under xvfb-run';
  else if (nativeModulesBuiltForNode())
    cached =
      'native modules (better-sqlite3) are built for Node, which Electron cannot load: run ' +
      '`npx electron-builder install-app-deps` first (and `npm rebuild` before running vitest again)';
  else cached = null;
  return cached;
}

export interface LaunchedDesk {
  app: ElectronApplication;
  /** The main window. */
  page: Page;
  /** PAYOUT_DESK_HOME of this launch (a fresh temp folder). */
  home: string;
  /** The main process's stdout and stderr, to explain a failed start. */
  output: string[];
  /** Uncaught errors of the page. */
  pageErrors: string[];
  close(): Promise<void>;
}

export async function launchDesk(): Promise<LaunchedDesk> {
  if (!existsSync(MAIN_ENTRY)) throw new Error(`${MAIN_ENTRY} is missing: build the app first (npx electron-vite build)`);
  const home = await mkdtemp(join(tmpdir(), 'payout-desk-electron-'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  // The built app as a user starts it: no dev server, not as plain Node.
  delete env['ELECTRON_RENDERER_URL'];
  delete env['ELECTRON_RUN_AS_NODE'];
  env['PAYOUT_DESK_HOME'] = home;

  // Linux as root cannot use Chromium's sandbox; everywhere else the renderer stays sandboxed.
  const rootOnLinux = process.platform === 'linux' && process.getuid?.() === 0;
  const app = await electron.launch({
    // No executablePath: Playwright resolves node_modules/electron itself and hooks the app's 'ready'.
    args: [...(rootOnLinux ? ['--no-sandbox'] : []), `--user-data-dir=${join(home, 'chromium')}`, '.'],
    chromiumSandbox: !rootOnLinux,
    cwd: ROOT,
    env,
    timeout: 60_000,
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => output.push(...chunk.toString('utf8').split(/\r?\n/).filter(Boolean));
  app.process().stdout?.on('data', keep);
  app.process().stderr?.on('data', keep);

  const page = await app.firstWindow();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // The same layout on every OS and screen (the drawer is permanent from 1280 px of content width).
  await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]?.setContentSize(1366, 860));

  return {
    app,
    page,
    home,
    output,
    pageErrors,
    async close() {
      // Quitting runs the app's will-quit handler: engines stop and journals close before exit.
      await app.close().catch(() => undefined);
      await rm(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  };
}

/** Picks an option of a Vuetify select by its visible text (as test/e2e does). */
export async function selectOption(page: Page, testId: string, optionText: string | RegExp): Promise<void> {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: optionText }).first().click();
}
