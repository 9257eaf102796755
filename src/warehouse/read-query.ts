import { type LoadTarget, targetEngine, type WarehouseDrivers } from './engines.js';
import type { QueryResult } from './query-result.js';

/**
 * `query`'s SQL on a load target, reading only: each engine opens its target so
 * (DuckDB read-only, PostgreSQL in a read-only transaction). No lock is taken:
 * a query does not wait for a load, and sees what it has committed.
 */
export async function readQuery(target: LoadTarget, sql: string, drivers: WarehouseDrivers = {}): Promise<QueryResult> {
  return targetEngine(target).query(target, sql, drivers);
}
