import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * DuckDB's Node API (`@duckdb/node-api`, an optional dependency), loaded on first use by the
 * warehouse load, the Parquet output and the demo. The package is CommonJS: `require()` gives
 * the very module an `import()` would, without the ES module loader scanning its fifty-odd files
 * for their exports first, which cost about 0.1 CPU-s of every process that loads DuckDB
 * (0.24 against 0.13 CPU-s for the load alone). Throws as `import()` would when it is not installed.
 */
export async function loadDuckdbApi(): Promise<typeof import('@duckdb/node-api')> {
  return require('@duckdb/node-api');
}

/** How a caller loads DuckDB: `loadDuckdbApi`, or in tests one that fails as a missing package would. */
export type LoadDuckdbApi = typeof loadDuckdbApi;
