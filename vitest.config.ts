import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Integration files spend much of their time waiting on sockets and child processes, so
    // one more file than cores keeps the cores busy; vitest's default (cores - 1) runs one
    // file at a time on a 2-core machine (a suite of 700 s there, 490 s with three).
    maxWorkers: availableParallelism() + 1,
    // Fails the run when a test leaves files in ./out, ./.helpdesk-sync or config/helpdesk-sync.yaml.
    globalSetup: ['test/support/checkout-guard.ts'],
    // The JSON report is what .ci/run reads for its closing `N passed, N failed` line.
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
    projects: [
      {
        extends: true,
        // Unit files keep no state between them (no servers, no process-wide settings left
        // behind), so they share their workers: a fresh process per file would cost more than
        // most of them take to run.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false },
      },
      {
        extends: true,
        // Integration files start servers on ephemeral ports; a process each keeps native
        // modules (better-sqlite3, duckdb) and process-wide state apart.
        // They run the CLI from dist/, as users do: a source newer than the build is built first.
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/fresh-build.ts'],
        },
      },
    ],
  },
});
