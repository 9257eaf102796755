import { createRequire } from 'node:module';
import type { ConfigIssue } from '../../errors.js';
import { isPlainObject } from '../../plain-object.js';

/** The package of the Parquet engine (an optional dependency). */
export const PARQUET_ENGINE_PACKAGE = '@duckdb/node-api';

/** Whether a package can be found from here, without loading it (DuckDB's bindings are large). */
export type CanResolve = (name: string) => boolean;

const requireHere = createRequire(import.meta.url);

export const canResolve: CanResolve = (name) => {
  try {
    requireHere.resolve(name);
    return true;
  } catch {
    return false;
  }
};

/**
 * The config rule (see ConfigRule in src/config/load.ts) of `destination.format:
 * parquet`: Parquet files are written by DuckDB, an optional dependency that an
 * installation made with `--omit=optional` (the container image by default) lacks.
 * A command that writes files learns it before any request, with the way to add it.
 */
export function parquetEngineConfigRule(
  writesFiles: boolean,
  resolve: CanResolve = canResolve,
): (raw: unknown) => ConfigIssue[] {
  return (raw) => {
    const destination = isPlainObject(raw) ? raw.destination : undefined;
    if (!writesFiles || !isPlainObject(destination) || destination.format !== 'parquet') return [];
    if (resolve(PARQUET_ENGINE_PACKAGE)) return [];
    return [
      {
        path: 'destination.format',
        message:
          `parquet is written by DuckDB (${PARQUET_ENGINE_PACKAGE}), an optional dependency this installation ` +
          `left out (installed with --omit=optional?): install it (npm install ${PARQUET_ENGINE_PACKAGE}; in the ` +
          'container image, build with --build-arg NPM_OMIT=dev), or use format: jsonl',
      },
    ];
  };
}
