import { LoadError, LockHeldError } from '../errors.js';
import { postgresMergeLanded, warehouseScript } from '../output/load-recipe.js';
import type { Manifest, ManifestFile } from '../output/manifest.js';
import type { FaultPoint } from '../output/sinks/sink.js';
import type { TableName } from '../output/tables.js';
import type { OutputFiles } from './output-files.js';
import { PIPELINES_DDL, SELECT_PIPELINES } from './pipeline.js';
import type { SqlConnection } from './sql-connection.js';
import {
  filesByTable,
  LEDGER_DDL,
  type ManifestLoad,
  manifestLedgerValues,
  pipelineRecords,
  RECORD_MANIFEST,
  type TableLoaded,
  type Warehouse,
} from './warehouse.js';

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

/** Copies a file's lines into `helpdesk_landing` (what the printed recipe does with psql's \copy); returns their count. */
async function land(db: SqlConnection, files: OutputFiles, file: ManifestFile): Promise<number> {
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
  files: OutputFiles,
  onTable: TableLoaded,
  fault: FaultPoint,
): Promise<ManifestLoad> {
  const loads: ManifestLoad = {};
  for (const [table, list] of filesByTable(manifest)) {
    let lines = 0;
    for (const file of list) {
      lines += await land(db, files, file);
      await fault('file-staged');
    }
    await db.exec(postgresMergeLanded(table));
    const [counted] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}_batch`);
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
        await db.exec(warehouseScript('postgres')[0]!.sql);
        await db.exec(`${LEDGER_DDL}\n${PIPELINES_DDL}`);
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
    async loadManifest(manifest, files, { onTable, fault, pipeline }) {
      await db.exec('BEGIN');
      try {
        const loads = await loadTables(db, manifest, files, onTable, fault);
        await db.query(RECORD_MANIFEST, manifestLedgerValues(manifest, loads));
        if (pipeline) await db.query(pipeline.sql, pipeline.params);
        await fault('before-commit');
        await db.exec('COMMIT');
        return loads;
      } catch (error) {
        await db.exec('ROLLBACK').catch(() => undefined);
        throw refused(`manifest ${manifest.run_id}`, error);
      }
    },
    async currentRows(table: TableName) {
      const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
      return Number(row?.n ?? 0);
    },
    close: () => db.close(),
  };
}
