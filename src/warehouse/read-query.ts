import { describeLoadTarget, type LoadTarget } from '../config/load-target.js';
import { loadDuckdbApi } from '../duckdb-api.js';
import { QueryError } from '../errors.js';
import { queryDuckdb } from './duckdb/duckdb-query.js';
import type { WarehouseDrivers } from './open-warehouse.js';
import { queryPostgres } from './postgres/postgres-query.js';
import { connectWithPg, type SqlConnection } from './postgres/sql-connection.js';
import type { QueryResult } from './query-result.js';
import { reasonOf } from './table-failure.js';

/**
 * `query`'s SQL on a load target, reading only: DuckDB opened read-only, PostgreSQL
 * in a read-only transaction. No lock is taken: a query does not wait for a load
 * into PostgreSQL, and sees what it has committed.
 */
export async function readQuery(target: LoadTarget, sql: string, drivers: WarehouseDrivers = {}): Promise<QueryResult> {
  if (target.kind === 'duckdb') return queryDuckdb(target.path, sql, drivers.importDuckdb ?? loadDuckdbApi);
  let connection: SqlConnection;
  try {
    connection = await (drivers.connectPostgres ?? connectWithPg)(target.url);
  } catch (cause) {
    // The driver's words are the load's (LOAD_FAILED): said again as the query's.
    throw new QueryError(reasonOf(cause), { cause });
  }
  return queryPostgres(connection, describeLoadTarget(target), sql);
}
