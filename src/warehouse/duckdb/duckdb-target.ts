import { join } from 'node:path';
import { type LoadDuckdbApi, loadDuckdbApi } from '../../duckdb-api.js';
import type { EngineTarget } from '../target.js';

/** A DuckDB database file: `duckdb:<path>`, the embedded default. */
export interface DuckdbTarget {
  readonly kind: 'duckdb';
  readonly path: string;
}

/** How DuckDB is reached; tests hand in one that fails as a missing package would. */
export interface DuckdbDrivers {
  /** @default loadDuckdbApi (src/duckdb-api.ts) */
  importDuckdb?: LoadDuckdbApi;
}

const PREFIX = 'duckdb:';

export const DUCKDB_TARGET = {
  kind: 'duckdb',
  title: 'DuckDB',
  form: 'duckdb:<file>',
  parse(text: string) {
    if (!text.startsWith(PREFIX)) return undefined;
    const path = text.slice(PREFIX.length);
    return path === ''
      ? { problem: 'duckdb: needs a file path, e.g. duckdb:./warehouse.duckdb' }
      : { target: { kind: 'duckdb', path } as const };
  },
  text: (target: DuckdbTarget) => `${PREFIX}${target.path}`,
  describe: (target: DuckdbTarget) => `${PREFIX}${target.path}`,
  async open(target: DuckdbTarget, drivers: DuckdbDrivers) {
    const { openDuckdbWarehouse } = await import('./duckdb-connection.js');
    return openDuckdbWarehouse(target.path, drivers.importDuckdb ?? loadDuckdbApi);
  },
  fileBeside: (dir: string, stem: string): DuckdbTarget => ({ kind: 'duckdb', path: join(dir, `${stem}.duckdb`) }),
} as const satisfies EngineTarget<DuckdbTarget, DuckdbDrivers>;
