import { describeLoadTarget, type LoadTarget } from '../config/load-target.js';
import { type LoadDuckdbApi, loadDuckdbApi } from '../duckdb-api.js';
import { openDuckdbWarehouse } from './duckdb/duckdb-connection.js';
import { openCopySpool } from './postgres/copy-spool.js';
import { openPostgresWarehouse } from './postgres/postgres-connection.js';
import { type ConnectPostgres, connectWithPg } from './postgres/sql-connection.js';
import type { Warehouse } from './warehouse.js';

/** How a warehouse is reached; tests replace a driver (PGlite for PostgreSQL, a missing DuckDB). */
export interface WarehouseDrivers {
  /** @default the pg driver */
  connectPostgres?: ConnectPostgres;
  /** @default loadDuckdbApi (src/duckdb-api.ts) */
  importDuckdb?: LoadDuckdbApi;
  /** Where a PostgreSQL load spools the rows it encodes ahead of their COPY (copy-spool.ts). @default the OS temporary directory */
  spoolDir?: string;
}

/** Opens the target and takes its load lock (a LockHeldError when another load holds it). */
export async function openWarehouse(target: LoadTarget, drivers: WarehouseDrivers = {}): Promise<Warehouse> {
  if (target.kind === 'duckdb') return openDuckdbWarehouse(target.path, drivers.importDuckdb ?? loadDuckdbApi);
  const connection = await (drivers.connectPostgres ?? connectWithPg)(target.url);
  return openPostgresWarehouse(connection, describeLoadTarget(target), () => openCopySpool(drivers.spoolDir));
}
