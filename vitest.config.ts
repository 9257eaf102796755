import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start servers on ephemeral ports; forks keep native modules
    // (better-sqlite3, duckdb) isolated per file.
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
  },
});
