import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { DuckDBValue } from '@duckdb/node-api';
import type { LoadDuckdbApi } from '../../duckdb-api.js';
import { LoadDriverMissingError, LoadError, LoadTargetError, LockHeldError } from '../../errors.js';
import type { Manifest } from '../../output/manifest.js';
import { LEDGER_DDL, LOAD_ERRORS_DDL } from '../bookkeeping.js';
import { renderDdl } from '../ddl.js';
import { fillAccountStatement } from '../evolution/account-fill.js';
import { inManifestTransaction } from '../merge/manifest-transaction.js';
import { dropBatchTables, rawTablesDdl } from '../merge/raw-tables.js';
import { PIPELINES_DDL, pipelineRecords, SELECT_PIPELINES } from '../pipeline.js';
import { reasonOf, refusedManifests } from '../table-failure.js';
import { emptyLoads, filesByTable, type ManifestHooks, type Warehouse } from '../warehouse.js';
import { checkDuckdbFile, FILE_OF_DATABASE } from './check-duckdb-file.js';
import { dropKeyConstraints } from './drop-key-constraints.js';
import { DUCKDB } from './duckdb-dialect.js';
import { DUCKDB_EVOLUTION } from './duckdb-evolution.js';
import { duckdbSession } from './duckdb-session.js';
import { runTables, type StagedFile, type StagedTable, separate } from './duckdb-tables.js';

/**
 * DuckDB runs inside the loading process, so its memory is the load's. Capped,
 * it spills to `<database>.tmp` beside the file (DuckDB's default temp directory)
 * instead of growing: nothing a load does needs more than the cap, since the keyed
 * tables have no index (an ART index must fit in memory; duckdb-dialect.ts).
 * The cap is 88 MB: outside it the process holds about 150 MB (Node and the
 * DuckDB library, their mapped code, what DuckDB allocates beside its buffer
 * pool). 128 MB peaked at 273–280 MB; 96 MB at 236–257 MB, once over the 256 MB
 * target; 88 MB at 232–248 MB, as fast in eleven alternated loads of a million
 * rows; 80 MB spilled so much that a load took three to four times as long. The
 * JSON reader takes about 34 MB of the cap whatever `maximum_object_size` says
 * (two buffers of at least 16 MB each), so a smaller one would not free any of it.
 * One thread: each reader thread holds its own JSON buffers, and two ran out of
 * memory under the cap; DuckDB's tasks run on the JavaScript thread
 * (duckdb-session.ts). Row order within a table means nothing here (versions are
 * ordered by _synced_at). DuckDB's allocator keeps up to 128 MB of freed memory by
 * default; 8 MB returns it. (docs/performance.md, "Loading into a warehouse", has the load's figures.)
 */
export const DUCKDB_LOAD_SETTINGS = {
  memory_limit: '88MB',
  threads: '1',
  preserve_insertion_order: 'false',
  allocator_flush_threshold: '8MB',
  allocator_bulk_deallocation_flush_threshold: '8MB',
} as const;

/** The DuckDB driver, or the error that says how to install it (an optional dependency). */
export async function importDriver(importDuckdb: LoadDuckdbApi): Promise<typeof import('@duckdb/node-api')> {
  try {
    return await importDuckdb();
  } catch (cause) {
    throw new LoadDriverMissingError(
      'loading into DuckDB needs @duckdb/node-api, an optional dependency this installation left out ' +
        '(installed with --omit=optional?): install it (npm install @duckdb/node-api), or load into PostgreSQL',
      { cause },
    );
  }
}

/**
 * DuckDB through the printed recipe's statements: the keyed tables and
 * `read_<table>` macros, then per transaction (one or more manifests) each
 * table's files read into a temporary batch of this session and merged, the
 * batch appended to `_raw` only where the load keeps it (raw-tables.ts).
 * DuckDB's own file lock lets one process write the file: a second load finds it
 * locked and stops with the lock code.
 */
export async function openDuckdbWarehouse(path: string, importDuckdb: LoadDuckdbApi): Promise<Warehouse> {
  const { DuckDBInstance } = await importDriver(importDuckdb);
  await checkDuckdbFile(path);
  await mkdir(dirname(path), { recursive: true });
  let instance: Awaited<ReturnType<typeof DuckDBInstance.create>>;
  try {
    instance = await DuckDBInstance.create(path, DUCKDB_LOAD_SETTINGS);
  } catch (cause) {
    if (/lock/i.test(reasonOf(cause))) {
      throw new LockHeldError(`another process has the DuckDB file ${path} open; try again later`, { cause });
    }
    throw new LoadError(`could not open the DuckDB file ${path}: ${reasonOf(cause)}`, { cause });
  }
  const connection = await instance.connect();
  const db = duckdbSession(connection);
  const [where] = (await db.read(FILE_OF_DATABASE)).getRows();
  if (where?.[0] === null || where?.[0] === undefined) {
    connection.closeSync();
    instance.closeSync();
    throw new LoadTargetError(
      `DuckDB opened ${path} as an in-memory database, which keeps nothing: name a database file`,
    );
  }

  const run = (sql: string, params?: unknown[]) => db.run(sql, params as DuckDBValue[] | undefined);
  const count = async (sql: string) => Number((await db.read(sql)).getRows()[0]?.[0] ?? 0);
  const transaction = (manifests: readonly Manifest[], staged: StagedTable[], hooks: ManifestHooks) =>
    inManifestTransaction(run, manifests, hooks, () =>
      runTables(db, staged, emptyLoads(manifests), {
        ...hooks,
        raw: hooks.raw === true,
        fill: (table) => fillAccountStatement(table, `${table}_batch`, manifests, hooks.accountOf),
      }),
    );

  return {
    describe: `duckdb:${path}`,
    async setup({ raw }) {
      // The keyed tables and their read_<table> macros; `_raw` only where this load keeps it (raw-tables.ts).
      await db.run(renderDdl(DUCKDB));
      if (raw) await db.run(rawTablesDdl(DUCKDB));
      await db.run(dropBatchTables('main.'));
      await db.run(`${LOAD_ERRORS_DDL}\n${LEDGER_DDL}\n${PIPELINES_DDL}`);
      await dropKeyConstraints({ run, rows: async (sql) => (await db.read(sql)).getRowObjectsJson() });
    },
    async loadedRuns() {
      const rows = (await db.read('SELECT run_id FROM helpdesk_loaded_manifests')).getRows();
      return new Set(rows.map((r) => String(r[0])));
    },
    async pipelines() {
      return pipelineRecords((await db.read(SELECT_PIPELINES)).getRowObjectsJson());
    },
    async loadManifests(manifests, files, hooks) {
      const { fault } = hooks;
      const staged: StagedTable[] = [];
      for (const [table, list] of filesByTable(manifests)) {
        const stagedFiles: StagedFile[] = [];
        for (const load of list) {
          stagedFiles.push({ load, path: await files.localFile(load.file), bad: [] });
          await fault('file-staged');
        }
        staged.push({ table, files: stagedFiles });
      }
      try {
        return await transaction(manifests, staged, hooks);
      } catch (error) {
        if (error instanceof LoadError) throw error;
        // DuckDB fails a whole read for one line it refuses; keep those lines aside and load the rest.
        const workDir = await mkdtemp(join(tmpdir(), 'helpdesk-separate-'));
        try {
          const separated = await separate(db, staged, hooks.before ?? [], workDir);
          if (!separated) throw refusedManifests('DuckDB', manifests, error);
          return await transaction(manifests, separated, hooks);
        } catch (again) {
          throw refusedManifests('DuckDB', manifests, again);
        } finally {
          await rm(workDir, { recursive: true, force: true });
        }
      }
    },
    schema: {
      describe: `duckdb:${path}`,
      dialectTypes: DUCKDB.types,
      evolution: DUCKDB_EVOLUTION,
      async catalog(tables) {
        const rows = (await db.read(DUCKDB_EVOLUTION.catalogQuery(tables))).getRows();
        return rows.map(([table, column, type]) => ({
          table: String(table),
          column: String(column),
          type: String(type),
        }));
      },
      count: (sql) => count(sql),
    },
    currentRows: (table) => count(`SELECT count(*) FROM ${table}`),
    async close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}
