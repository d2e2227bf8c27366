import { defineConfig } from 'vitest/config';

// The forks pool is required: the Temporal worker loads a native module that does not survive worker_threads.
export default defineConfig({
  test: {
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Some unit tests start the CLI, git or a simulator: on a loaded 2-core machine they took over vitest's
          // 5 s default. Time is measured by the benchmarks under bench/, not by test timeouts.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/helpers/temporal-global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // One file at a time: each starts real processes against one dev server on a 2-core machine.
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          // The real Temporal server on PostgreSQL (built with Go on the first run), not the dev server.
          globalSetup: ['test/helpers/cluster-global-setup.ts'],
          testTimeout: 900_000,
          hookTimeout: 900_000,
          fileParallelism: false,
          // A group of its own, so it never runs beside the integration files (vitest puts those, one at a time, in a
          // group of their own at the end): two gateways, two workers and a server would starve them.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
