import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { LoadDriverMissingError, LoadError, LoadTargetError, LockHeldError } from '../../errors.js';
import type { Manifest } from '../../output/manifest.js';
import { fileFormatOf } from '../../output/object-keys.js';
import type { FaultPoint } from '../../output/sinks/sink.js';
import type { TableName } from '../../output/tables.js';
import { LEDGER_DDL, LOAD_ERRORS_DDL } from '../bookkeeping.js';
import { inManifestTransaction } from '../manifest-transaction.js';
import { PIPELINES_DDL, pipelineRecords, SELECT_PIPELINES } from '../pipeline.js';
import { sqlQuote as quote } from '../table-columns.js';
import { forTable, refusedManifests, TableFailure } from '../table-failure.js';
import {
  addTableLoad,
  emptyLoads,
  filesByTable,
  type LoadFile,
  type ManifestHooks,
  type ManifestLoads,
  type TableLoaded,
  type Warehouse,
} from '../warehouse.js';
import { warehouseScript } from '../warehouse-script.js';
import { checkDuckdbFile, FILE_OF_DATABASE } from './check-duckdb-file.js';
import { dropKeyConstraints } from './drop-key-constraints.js';
import { DUCKDB, duckdbMergeFiles } from './duckdb-dialect.js';
import { DUCKDB_EVOLUTION } from './duckdb-evolution.js';
import { type BadLine, separateBadLines } from './separate-bad-lines.js';

/**
 * DuckDB runs inside the loading process, so its memory is the load's. Capped,
 * it spills to `<database>.tmp` beside the file (DuckDB's default temp directory)
 * instead of growing: nothing a load does needs more than the cap, since the keyed
 * tables have no index (an ART index must fit in memory; duckdb-dialect.ts).
 * One thread: each reader thread holds its own JSON buffers beside the cap, and
 * two ran out of memory under it (docs/output.md, Performance). Row order within
 * a table means nothing here (versions are ordered by _synced_at). DuckDB's
 * allocator keeps up to 128 MB of freed memory by default; 8 MB returns it.
 */
export const DUCKDB_LOAD_SETTINGS = {
  memory_limit: '128MB',
  threads: '1',
  preserve_insertion_order: 'false',
  allocator_flush_threshold: '8MB',
  allocator_bulk_deallocation_flush_threshold: '8MB',
} as const;

/** How the driver is loaded: `import('@duckdb/node-api')` (tests hand in a failing one). */
export type ImportDuckdb = () => Promise<typeof import('@duckdb/node-api')>;

export const importDuckdbApi: ImportDuckdb = () => import('@duckdb/node-api');

const message = (error: unknown) => (error as Error)?.message ?? String(error);

/** A Parquet output file (typed already; read with read_parquet, never split into lines). */
const isParquet = (path: string) => fileFormatOf(path) === 'parquet';

/** One file to read: the manifest's entry, and its local copy (or, once separated, its good lines; none when no line is good). */
interface StagedFile {
  load: LoadFile;
  path: string | undefined;
  /** The lines the table refused (none at first). */
  bad: BadLine[];
}

/** The transaction's files of one table, in the manifests' order. */
interface StagedTable {
  table: TableName;
  files: StagedFile[];
}

/** The rows a file gives: its lines (the manifest's count, checked by its checksum) less those refused. */
const rowsOf = (f: StagedFile) => f.load.file.rows - f.bad.length;

async function importDriver(importDuckdb: ImportDuckdb): Promise<typeof import('@duckdb/node-api')> {
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

async function runTables(
  db: DuckDBConnection,
  staged: StagedTable[],
  loads: ManifestLoads,
  onTable: TableLoaded,
  fault: FaultPoint,
): Promise<ManifestLoads> {
  for (const { table, files } of staged) {
    const paths = files.flatMap((f) => (f.path ? [f.path] : []));
    const keys = files.map((f) => f.load.file.key);
    const counted = await forTable(table, keys, async () => {
      // The batch is this session's own: rows that are emptied before the next load never reach the WAL.
      await db.run(`CREATE OR REPLACE TEMP TABLE ${table}_batch AS SELECT * FROM main.${table}_batch LIMIT 0;`);
      const parquet = paths.filter(isParquet);
      await db.run(
        `SET VARIABLE helpdesk_files = [${paths
          .filter((p) => !isParquet(p))
          .map(quote)
          .join(', ')}]::VARCHAR[];`,
      );
      await db.run(`SET VARIABLE helpdesk_parquet_files = [${parquet.map(quote).join(', ')}]::VARCHAR[];`);
      await db.run(duckdbMergeFiles(table));
      return Number((await db.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM ${table}_batch`)).getRows()[0]?.[0]);
    });
    const expected = files.reduce((n, f) => n + rowsOf(f), 0);
    if (counted !== expected) {
      throw new TableFailure(table, keys, new Error(`read ${counted} rows where the files hold ${expected}`));
    }
    for (const f of files) {
      for (const b of f.bad) {
        await db.run('INSERT INTO helpdesk_load_errors (table_name, line, error) VALUES ($1, $2, $3)', [
          `${table}_batch`,
          b.line,
          b.error,
        ]);
      }
      addTableLoad(loads, f.load.runId, table, { rows: rowsOf(f), errors: f.bad.length });
    }
    onTable(table, { rows: counted, errors: files.reduce((n, f) => n + f.bad.length, 0) });
    await fault('table-merged');
  }
  return loads;
}

/**
 * DuckDB through the printed recipe: the setup script (tables and `read_<table>`
 * macros), then per manifest one transaction that sets `helpdesk_files` to the
 * manifest's files of each table and runs the recipe's load-and-merge statements.
 * DuckDB's own file lock lets one process write the file: a second load finds it
 * locked and stops with the lock code.
 */
export async function openDuckdbWarehouse(path: string, importDuckdb: ImportDuckdb): Promise<Warehouse> {
  const { DuckDBInstance } = await importDriver(importDuckdb);
  await checkDuckdbFile(path);
  await mkdir(dirname(path), { recursive: true });
  let instance: Awaited<ReturnType<typeof DuckDBInstance.create>>;
  try {
    instance = await DuckDBInstance.create(path, DUCKDB_LOAD_SETTINGS);
  } catch (cause) {
    if (/lock/i.test(message(cause))) {
      throw new LockHeldError(`another process has the DuckDB file ${path} open; try again later`, { cause });
    }
    throw new LoadError(`could not open the DuckDB file ${path}: ${message(cause)}`, { cause });
  }
  const db = await instance.connect();
  const [where] = (await db.runAndReadAll(FILE_OF_DATABASE)).getRows();
  if (where?.[0] === null || where?.[0] === undefined) {
    db.closeSync();
    instance.closeSync();
    throw new LoadTargetError(
      `DuckDB opened ${path} as an in-memory database, which keeps nothing: name a database file`,
    );
  }

  /** Whether the load's own insert takes a file: tried in a transaction that is rolled back. */
  const probe = async (table: TableName, file: string, before: readonly string[]) => {
    await db.run('BEGIN TRANSACTION');
    try {
      // The schema changes of the load first, so the probe meets the tables the load will.
      for (const statement of before) await db.run(statement);
      // Every column is read and typed (a count alone would skip the columns it does not need).
      const reader = isParquet(file)
        ? `read_parquet([${quote(file)}], hive_partitioning = false)`
        : `read_${table}([${quote(file)}])`;
      await db.run(`INSERT INTO ${table}_batch BY NAME SELECT * FROM ${reader}`);
      return undefined;
    } catch (error) {
      return message(error);
    } finally {
      await db.run('ROLLBACK');
    }
  };

  /** After a refused transaction: each file the table's reader refuses, split into its good and bad lines. */
  async function separate(
    staged: StagedTable[],
    before: readonly string[],
    workDir: string,
  ): Promise<StagedTable[] | undefined> {
    let found = false;
    const out: StagedTable[] = [];
    for (const s of staged) {
      const files: StagedFile[] = [];
      for (const f of s.files) {
        // A Parquet file has no lines to set aside: one it refuses fails the transaction.
        if (!f.path || isParquet(f.path) || (await probe(s.table, f.path, before)) === undefined) {
          files.push(f);
          continue;
        }
        found = true;
        const split = await separateBadLines(f.path, (part) => probe(s.table, part, before), workDir);
        files.push({ load: f.load, path: split.path, bad: [...f.bad, ...split.bad] });
      }
      out.push({ table: s.table, files });
    }
    return found ? out : undefined;
  }

  const run = (sql: string, params?: unknown[]) => db.run(sql, params as DuckDBValue[] | undefined);
  const count = async (sql: string) => Number((await db.runAndReadAll(sql)).getRows()[0]?.[0] ?? 0);
  const transaction = (manifests: readonly Manifest[], staged: StagedTable[], hooks: ManifestHooks) =>
    inManifestTransaction(run, manifests, hooks, () =>
      runTables(db, staged, emptyLoads(manifests), hooks.onTable, hooks.fault),
    );

  return {
    describe: `duckdb:${path}`,
    async setup() {
      await db.run(warehouseScript(DUCKDB)[0]!.sql);
      await db.run(`${LOAD_ERRORS_DDL}\n${LEDGER_DDL}\n${PIPELINES_DDL}`);
      await dropKeyConstraints({ run, rows: async (sql) => (await db.runAndReadAll(sql)).getRowObjectsJson() });
    },
    async loadedRuns() {
      const rows = (await db.runAndReadAll('SELECT run_id FROM helpdesk_loaded_manifests')).getRows();
      return new Set(rows.map((r) => String(r[0])));
    },
    async pipelines() {
      return pipelineRecords((await db.runAndReadAll(SELECT_PIPELINES)).getRowObjectsJson());
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
          const separated = await separate(staged, hooks.before ?? [], workDir);
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
        const rows = (await db.runAndReadAll(DUCKDB_EVOLUTION.catalogQuery(tables))).getRows();
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
      db.closeSync();
      instance.closeSync();
    },
  };
}
