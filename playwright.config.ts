import { defineConfig } from '@playwright/test';

// Debian's Chromium is the browser here: Playwright's own download cannot be fetched.
const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results',
  timeout: 60_000,
  // On CI a failed journey is run once more and reported as flaky in the closing summary (never hidden):
  // failing-payout.spec.ts once waited 50 s for the History search field on a busy machine, and the cause
  // is not found yet (see the closing note of issue 12).
  retries: process.env['CI'] ? 1 : 0,
  fullyParallel: false,
  workers: 1,
  reporter: [['list'], ['json', { outputFile: 'reports/e2e.json' }]],
  use: {
    viewport: { width: 1366, height: 860 },
    launchOptions: {
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
});
