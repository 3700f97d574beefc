import { defineConfig } from '@playwright/test';

// Electron launch tests: the built app (out/, from `electron-vite build`) in the real Electron binary.
// Where Electron cannot run (no binary, no display, native modules built for Node), every test is
// skipped and global-setup prints why; PAYOUT_DESK_REQUIRE_ELECTRON=1 turns that into a failure.
export default defineConfig({
  testDir: 'test/electron',
  // Its own folder: Playwright empties outputDir on start, and test-results/ holds the e2e run's output.
  outputDir: 'test-results/electron',
  globalSetup: './test/electron/support/global-setup.ts',
  timeout: 120_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  reporter: [['list'], ['json', { outputFile: 'reports/electron.json' }]],
});
