import { LoadError, LockHeldError } from '../../errors.js';
import type { Manifest } from '../../output/manifest.js';
import type { FaultPoint } from '../../output/sinks/sink.js';
import type { TableName } from '../../output/tables.js';
import { LEDGER_DDL } from '../bookkeeping.js';
import { inManifestTransaction } from '../manifest-transaction.js';
import { PIPELINES_DDL, pipelineRecords, SELECT_PIPELINES } from '../pipeline.js';
import { forTable, refusedManifests } from '../table-failure.js';
import {
  addTableLoad,
  emptyLoads,
  filesByTable,
  type ManifestFiles,
  type ManifestLoads,
  type TableLoaded,
  type Warehouse,
} from '../warehouse.js';
import { warehouseScript } from '../warehouse-script.js';
import { copyFileIntoBatch, typedCopyOf } from './postgres-copy-file.js';
import { POSTGRES, postgresMergeBatch } from './postgres-dialect.js';
import { EVOLUTION_HELPERS, POSTGRES_EVOLUTION } from './postgres-evolution.js';
import type { SqlConnection } from './sql-connection.js';

/**
 * One load at a time per database: a session-level advisory lock, released by the
 * server when the session ends, however it ends (a killed loader holds nothing).
 */
const TRY_LOCK = "SELECT pg_try_advisory_lock(hashtext('helpdesk-sync load')) AS locked";

function refused(what: string, error: unknown): LoadError {
  if (error instanceof LoadError) return error;
  return new LoadError(`PostgreSQL refused ${what}: ${(error as Error)?.message ?? error}`, { cause: error });
}

/**
 * The recipe's statements (postgres-dialect.ts), table by table: the batch table
 * emptied, then each file copied into it on its own (postgres-copy-file.ts: typed
 * in Node where it can be, else landed and typed by the recipe's helpdesk_land),
 * so that the lines it refuses are counted against the manifest that lists it,
 * then the batch appended to `_raw` and merged once for all the transaction's files.
 */
async function loadTables(
  db: SqlConnection,
  manifests: readonly Manifest[],
  files: ManifestFiles,
  onTable: TableLoaded,
  fault: FaultPoint,
): Promise<ManifestLoads> {
  const loads = emptyLoads(manifests);
  // The landing and batch tables of this session: transient rows never reach the WAL (the printed
  // recipe's persistent ones stay empty); created in the transaction, after its schema changes.
  await db.exec('CREATE TEMP TABLE IF NOT EXISTS helpdesk_landing (line text)');
  for (const [table, list] of filesByTable(manifests)) {
    await db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${table}_batch (LIKE ${table}_batch)`);
    await db.exec(`TRUNCATE ${table}_batch`);
    const typed = await forTable(
      table,
      list.map((f) => f.file.key),
      () => typedCopyOf(db, table),
    );
    let rows = 0;
    let errors = 0;
    for (const { runId, file } of list) {
      const load = await forTable(table, [file.key], () => copyFileIntoBatch(db, files, file, table, typed));
      await fault('file-staged');
      addTableLoad(loads, runId, table, load);
      rows += load.rows;
      errors += load.errors;
    }
    await forTable(
      table,
      list.map((f) => f.file.key),
      () => db.exec(postgresMergeBatch(table)),
    );
    onTable(table, { rows, errors });
    await fault('table-merged');
  }
  return loads;
}

/**
 * PostgreSQL through the printed recipe: the setup script, then per transaction
 * (one or more manifests) each table's lines landed, typed and merged with the
 * recipe's statements, and the manifests recorded.
 */
export async function openPostgresWarehouse(db: SqlConnection, describe: string): Promise<Warehouse> {
  const count = async (sql: string) => Number(Object.values((await db.query(sql))[0] ?? {})[0] ?? 0);
  try {
    const [lock] = await db.query<{ locked: boolean }>(TRY_LOCK);
    if (lock?.locked !== true) throw new LockHeldError(`another load is loading into ${describe}; try again later`);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error instanceof LockHeldError ? error : refused('the load lock', error);
  }
  return {
    describe,
    async setup() {
      try {
        await db.exec(warehouseScript(POSTGRES)[0]!.sql);
        await db.exec(`${LEDGER_DDL}\n${PIPELINES_DDL}\n${EVOLUTION_HELPERS}`);
      } catch (error) {
        throw refused('the setup script', error);
      }
    },
    async loadedRuns() {
      const rows = await db.query<{ run_id: string }>('SELECT run_id FROM helpdesk_loaded_manifests');
      return new Set(rows.map((r) => r.run_id));
    },
    async pipelines() {
      return pipelineRecords(await db.query(SELECT_PIPELINES));
    },
    async loadManifests(manifests, files, hooks) {
      const run = (sql: string, params?: unknown[]) => db.query(sql, params);
      try {
        return await inManifestTransaction(run, manifests, hooks, () =>
          loadTables(db, manifests, files, hooks.onTable, hooks.fault),
        );
      } catch (error) {
        throw refusedManifests('PostgreSQL', manifests, error);
      }
    },
    schema: {
      describe,
      dialectTypes: POSTGRES.types,
      evolution: POSTGRES_EVOLUTION,
      async catalog(tables) {
        const rows = await db.query<Record<string, unknown>>(POSTGRES_EVOLUTION.catalogQuery(tables));
        return rows.map((r) => ({
          table: String(r.table_name),
          column: String(r.column_name),
          type: String(r.data_type),
        }));
      },
      count,
    },
    currentRows: (table: TableName) => count(`SELECT count(*) FROM ${table}`),
    close: () => db.close(),
  };
}
