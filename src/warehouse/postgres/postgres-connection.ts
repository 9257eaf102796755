import { LoadError, LockHeldError } from '../../errors.js';
import type { Manifest, ManifestFile } from '../../output/manifest.js';
import type { FaultPoint } from '../../output/sinks/sink.js';
import type { TableName } from '../../output/tables.js';
import { LEDGER_DDL, type ManifestLoad } from '../bookkeeping.js';
import { inManifestTransaction } from '../manifest-transaction.js';
import { PIPELINES_DDL, pipelineRecords, SELECT_PIPELINES } from '../pipeline.js';
import { forTable, refusedManifest } from '../table-failure.js';
import { filesByTable, type ManifestFiles, type TableLoaded, type Warehouse } from '../warehouse.js';
import { warehouseScript } from '../warehouse-script.js';
import { POSTGRES, POSTGRES_COPY, postgresMergeLanded } from './postgres-dialect.js';
import { EVOLUTION_HELPERS, POSTGRES_EVOLUTION } from './postgres-evolution.js';
import type { SqlConnection } from './sql-connection.js';

/**
 * One load at a time per database: a session-level advisory lock, released by the
 * server when the session ends, however it ends (a killed loader holds nothing).
 */
const TRY_LOCK = "SELECT pg_try_advisory_lock(hashtext('helpdesk-sync load')) AS locked";

/** Lines sent per INSERT into the landing table: few round trips, bounded memory. */
const LANDING_BATCH = 2000;
const LAND = 'INSERT INTO helpdesk_landing (line) SELECT unnest($1::text[])';

function refused(what: string, error: unknown): LoadError {
  if (error instanceof LoadError) return error;
  return new LoadError(`PostgreSQL refused ${what}: ${(error as Error)?.message ?? error}`, { cause: error });
}

/** The COPY of the printed recipe (psql's client-side `\copy`), as the server's own `COPY … FROM STDIN`. */
const COPY_LANDING = POSTGRES_COPY.slice(1);

/**
 * Copies a file's lines into `helpdesk_landing` (what the printed recipe does with
 * psql's \copy), streamed through COPY FROM STDIN; a connection that cannot stream
 * a COPY (PGlite) inserts them in batches. Returns their count.
 */
async function land(db: SqlConnection, files: ManifestFiles, file: ManifestFile): Promise<number> {
  if (db.copyFrom) return db.copyFrom(COPY_LANDING, files.lines(file));
  let batch: string[] = [];
  let count = 0;
  for await (const line of files.lines(file)) {
    batch.push(line);
    if (batch.length === LANDING_BATCH) {
      await db.query(LAND, [batch]);
      count += batch.length;
      batch = [];
    }
  }
  if (batch.length > 0) await db.query(LAND, [batch]);
  return count + batch.length;
}

async function loadTables(
  db: SqlConnection,
  manifest: Manifest,
  files: ManifestFiles,
  onTable: TableLoaded,
  fault: FaultPoint,
): Promise<ManifestLoad> {
  const loads: ManifestLoad = {};
  // The landing and batch tables of this session: transient rows never reach the WAL (the printed
  // recipe's persistent ones stay empty); created in the manifest's transaction, after its schema changes.
  await db.exec('CREATE TEMP TABLE IF NOT EXISTS helpdesk_landing (line text)');
  for (const [table, list] of filesByTable(manifest)) {
    await db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${table}_batch (LIKE ${table}_batch)`);
    let lines = 0;
    const keys = list.map((f) => f.key);
    for (const file of list) {
      lines += await forTable(table, [file.key], () => land(db, files, file));
      await fault('file-staged');
    }
    const [counted] = await forTable(table, keys, async () => {
      await db.exec(postgresMergeLanded(table));
      return db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}_batch`);
    });
    // helpdesk_land moved every line it could; the others are in helpdesk_load_errors.
    const rows = Number(counted?.n ?? 0);
    loads[table] = { rows, errors: lines - rows };
    onTable(table, loads[table]);
    await fault('table-merged');
  }
  return loads;
}

/**
 * PostgreSQL through the printed recipe: the setup script, then per manifest one
 * transaction that lands each table's lines, types and merges them with the
 * recipe's statements, and records the manifest.
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
    async loadManifest(manifest, files, hooks) {
      const run = (sql: string, params?: unknown[]) => db.query(sql, params);
      try {
        return await inManifestTransaction(run, manifest, hooks, () =>
          loadTables(db, manifest, files, hooks.onTable, hooks.fault),
        );
      } catch (error) {
        throw refusedManifest('PostgreSQL', manifest, error);
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
