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
  // Two spec files at a time, their tests in order: each journey has its own data folder, sandbox and free
  // ports. On 2 cores 35 journeys took 5.1 min with two workers; with four, Chromium starved and journeys timed out.
  fullyParallel: false,
  workers: 2,
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
