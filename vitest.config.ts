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
    // Fails the run when a test leaves files in ./out, ./.helpdesk-sync or config/helpdesk-sync.yaml.
    globalSetup: ['test/support/checkout-guard.ts'],
    // The JSON report is what .ci/run reads for its closing `N passed, N failed` line.
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
});
