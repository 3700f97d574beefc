import { defineConfig } from 'vitest/config';

/**
 * Tests that hold a real-time rate to account (no 429 at the gateway's limit, a sustained rate within 5 %). They pass
 * on a quiet machine and say nothing on a starved one: `npm test` runs them last, alone (project real-time).
 */
const REAL_TIME = [
  'test/unit/gateway/rate-limiter.test.ts',
  'test/integration/gateway/rate-limit.test.ts',
  'test/integration/sandbox/rate-limit.test.ts',
  'test/integration/engine/network.test.ts',
  'test/integration/postgres/team-crash.test.ts',
  'test/integration/postgres/team-limiter.test.ts',
  'test/integration/postgres/rate-budget.test.ts',
];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'main/**/*.test.ts', 'renderer/**/*.test.ts'],
          exclude: REAL_TIME,
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: ['test/integration/postgres/**', ...REAL_TIME],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Integration suites share one keychain and loopback ports; files run in parallel, tests in a file in order.
          fileParallelism: true,
        },
      },
      {
        test: {
          // Adapters of the team journal against a real PostgreSQL, started once for the project.
          name: 'postgres',
          include: ['test/integration/postgres/**/*.test.ts'],
          exclude: REAL_TIME,
          environment: 'node',
          globalSetup: ['test/integration/postgres/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 90_000,
        },
      },
      {
        test: {
          name: 'real-time',
          include: REAL_TIME,
          environment: 'node',
          // Some of them run against the team database (their own database on the project's cluster).
          globalSetup: ['test/integration/postgres/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 90_000,
        },
      },
      {
        test: {
          name: 'simulation',
          include: ['test/simulation/**/*.test.ts'],
          environment: 'node',
          // Hundreds of simulated histories per test; each installs its own fake clock.
          testTimeout: 30 * 60_000,
          // The histories on PostgreSQL (postgres.test.ts) run on a throwaway cluster, one for the project.
          globalSetup: ['test/integration/postgres/global-setup.ts'],
          hookTimeout: 90_000,
          // Its two files side by side: a history on PostgreSQL mostly waits for the server, so the SQLite
          // histories keep the other core.
          maxWorkers: 2,
        },
      },
    ],
  },
});
