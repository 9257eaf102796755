import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/longest-first-sequencer.js';

/**
 * Files that measure their own process (its peak memory): each gets a fresh one, since a
 * worker shared with other files carries what they loaded (DuckDB, PGlite, servers).
 */
const OWN_PROCESS = ['test/integration/sandbox/data.test.ts'];

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files share their worker processes (vitest imports the sources once per worker, not
    // once per file: about half a CPU-second a file). Every file starts its own servers on
    // ephemeral ports, closes what it opens and restores what it sets in process.env.
    isolate: false,
    // Integration files spend much of their time waiting on sockets and child processes, so
    // one more file than cores keeps the cores busy; vitest's default (cores - 1) runs one
    // file at a time on a 2-core machine (a suite of 700 s there, 490 s with three).
    maxWorkers: availableParallelism() + 1,
    // The slowest files start first (test/support/longest-first-sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // Fails the run when a test leaves files in ./out, ./.helpdesk-sync or config/helpdesk-sync.yaml.
    globalSetup: ['test/support/checkout-guard.ts'],
    // The JSON report is what .ci/run reads for its closing `N passed, N failed` line. The last
    // counts the tests that drove a real PostgreSQL server or Chromium, and fails a run in which
    // a test was skipped (test/support/real-parts-reporter.ts).
    reporters: ['default', 'json', './test/support/real-parts-reporter.ts'],
    outputFile: { json: '.vitest-report.json' },
    projects: [
      // Projects of their own, so that `npm run test:unit` (`--project unit`) needs no build.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        // They run the CLI from dist/, as users do: a source newer than the build is built first.
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: OWN_PROCESS,
          globalSetup: ['test/support/fresh-build.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'own-process',
          include: OWN_PROCESS,
          isolate: true,
          globalSetup: ['test/support/fresh-build.ts'],
        },
      },
    ],
  },
});
