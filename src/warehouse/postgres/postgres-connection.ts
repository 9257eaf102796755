import { LoadError, LockHeldError } from '../../errors.js';
import type { TableName } from '../../output/tables.js';
import { LEDGER_DDL } from '../bookkeeping.js';
import { renderDdl } from '../ddl.js';
import { fillAccountStatement } from '../evolution/account-fill.js';
import { inManifestTransaction } from '../merge/manifest-transaction.js';
import { dropBatchTables, rawTablesDdl } from '../merge/raw-tables.js';
import { PIPELINES_DDL, pipelineRecords, SELECT_PIPELINES } from '../pipeline.js';
import { refusedManifests } from '../table-failure.js';
import type { Warehouse } from '../warehouse.js';
import { type OpenSpool, openCopySpool } from './copy-spool.js';
import { POSTGRES } from './postgres-dialect.js';
import { EVOLUTION_HELPERS, POSTGRES_EVOLUTION } from './postgres-evolution.js';
import { loadTables } from './postgres-load-tables.js';
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
 * PostgreSQL through the printed recipe's statements: the keyed tables and
 * helpers, then per transaction (one or more manifests) each table's lines
 * copied into a temporary batch, typed and merged, the batch appended to `_raw`
 * only where the load keeps it (raw-tables.ts), and the manifests recorded.
 */
export async function openPostgresWarehouse(
  db: SqlConnection,
  describe: string,
  openSpool: OpenSpool = openCopySpool,
): Promise<Warehouse> {
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
    async setup({ raw }) {
      try {
        // The keyed tables, helpdesk_land and the load errors; `_raw` only where this load keeps it
        // (raw-tables.ts). No temporary table exists yet in this session, so the DROP finds the target's.
        await db.exec(`${renderDdl(POSTGRES)}\n${POSTGRES.setupExtra!}`);
        if (raw) await db.exec(rawTablesDdl(POSTGRES));
        await db.exec(dropBatchTables());
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
          loadTables(db, manifests, files, {
            onTable: hooks.onTable,
            fault: hooks.fault,
            openSpool,
            raw: hooks.raw === true,
            fill: (table) => fillAccountStatement(table, `${table}_batch`, manifests, hooks.accountOf),
          }),
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
      async primaryKeys(tables) {
        const rows = await db.query<Record<string, unknown>>(POSTGRES_EVOLUTION.primaryKeyQuery!(tables));
        return rows.map((r) => ({
          table: String(r.table_name),
          constraint: String(r.constraint_name),
          columns: JSON.parse(String(r.columns)) as string[],
        }));
      },
      count,
    },
    currentRows: (table: TableName) => count(`SELECT count(*) FROM ${table}`),
    close: () => db.close(),
  };
}
