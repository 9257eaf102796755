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
/** A path that can only mean a DuckDB file: it ends in .duckdb or .db and is no URL (`scheme://`). */
const BARE_FILE = /\.(duckdb|db)$/i;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

export const DUCKDB_TARGET = {
  kind: 'duckdb',
  title: 'DuckDB',
  form: 'duckdb:<file> (or a path ending in .duckdb or .db)',
  parse(text: string) {
    // A bare path ending in .duckdb or .db is a DuckDB file, as duckdb:<path> is.
    if (BARE_FILE.test(text) && !URL_SCHEME.test(text) && !text.startsWith(PREFIX))
      return { target: { kind: 'duckdb', path: text } as const };
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
  async query(target: DuckdbTarget, sql: string, drivers: DuckdbDrivers) {
    const { queryDuckdb } = await import('./duckdb-query.js');
    return queryDuckdb(target.path, sql, drivers.importDuckdb ?? loadDuckdbApi);
  },
  loadArgument: (target: DuckdbTarget) => target.path,
  fileBeside: (dir: string, stem: string): DuckdbTarget => ({ kind: 'duckdb', path: join(dir, `${stem}.duckdb`) }),
} as const satisfies EngineTarget<DuckdbTarget, DuckdbDrivers>;
