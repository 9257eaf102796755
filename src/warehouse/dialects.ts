import { BIGQUERY } from './bigquery/bigquery-dialect.js';
import type { Dialect } from './dialect.js';
import { DUCKDB } from './duckdb/duckdb-dialect.js';
import { ENGINE_NAMES, type EngineName } from './engines.js';
import { POSTGRES } from './postgres/postgres-dialect.js';
import { SNOWFLAKE } from './snowflake/snowflake-dialect.js';

/** The warehouses the project prints scripts for (the registry's engines, engines.ts). */
export const DIALECT_NAMES = ENGINE_NAMES;
type DialectName = EngineName;

/** Every warehouse by name: adding one is adding its folder and a line here. */
export const DIALECTS: Record<DialectName, Dialect> = {
  duckdb: DUCKDB,
  bigquery: BIGQUERY,
  snowflake: SNOWFLAKE,
  postgres: POSTGRES,
};
