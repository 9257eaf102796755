import { BIGQUERY } from './bigquery/bigquery-dialect.js';
import type { Dialect, DialectName } from './dialect.js';
import { DUCKDB } from './duckdb/duckdb-dialect.js';
import { POSTGRES } from './postgres/postgres-dialect.js';
import { SNOWFLAKE } from './snowflake/snowflake-dialect.js';

/** Every warehouse by name: adding one is adding its folder and a line here. */
export const DIALECTS: Record<DialectName, Dialect> = {
  duckdb: DUCKDB,
  bigquery: BIGQUERY,
  snowflake: SNOWFLAKE,
  postgres: POSTGRES,
};
