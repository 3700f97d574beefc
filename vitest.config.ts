import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'main/**/*.test.ts', 'renderer/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: ['test/integration/postgres/**'],
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
          environment: 'node',
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
