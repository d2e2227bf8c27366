import { defineConfig } from 'vitest/config';

// The forks pool is required: the Temporal worker loads a native module that does not survive worker_threads.
// Four lanes by cost, cheapest first; `npm test` (scripts/test.sh) runs them in this order and stops at the first one
// that fails (docs/testing.md, "The lanes").
export default defineConfig({
  test: {
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          // No process and no socket (the guard throws on either): decisions, parsers, renderers, the simulation of
          // the decider, and the replay of recorded histories in process.
          name: 'pure',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/helpers/pure-lane-guard.ts'],
          // The replay test bundles the workflow code first (about 20 s on the 2-core machine).
          testTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          // Real processes and loopback sockets, no Temporal server: the CLI, git, the simulators over real HTTP, the
          // gateway app on its server, promtool, podman and Chromium.
          name: 'process',
          include: ['test/process/**/*.test.ts'],
          // On a loaded 2-core machine some took over vitest's 5 s default. Time is measured by the benchmarks under
          // bench/, not by test timeouts.
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
          // When one vitest run takes several lanes (`npm test -- --project integration --project cluster`), a group
          // of its own, so it never runs beside the integration files: two gateways, two workers and a server would
          // starve them.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
