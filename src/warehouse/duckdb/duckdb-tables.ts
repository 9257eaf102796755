import { fileFormatOf } from '../../output/object-keys.js';
import type { FaultPoint } from '../../output/sinks/sink.js';
import type { TableName } from '../../output/tables.js';
import { sqlQuote as quote } from '../table-columns.js';
import { forTable, reasonOf, TableFailure } from '../table-failure.js';
import { addTableLoad, type LoadFile, type ManifestLoads, type TableLoaded } from '../warehouse.js';
import { duckdbLandFiles, duckdbMergeBatch } from './duckdb-dialect.js';
import type { DuckdbSession } from './duckdb-session.js';
import { type BadLine, separateBadLines } from './separate-bad-lines.js';

/** A Parquet output file (typed already; read with read_parquet, never split into lines). */
export const isParquet = (path: string) => fileFormatOf(path) === 'parquet';

/** One file to read: the manifest's entry, and its local copy (or, once separated, its good lines; none when no line is good). */
export interface StagedFile {
  load: LoadFile;
  path: string | undefined;
  /** The lines the table refused (none at first). */
  bad: BadLine[];
}

/** The transaction's files of one table, in the manifests' order. */
export interface StagedTable {
  table: TableName;
  files: StagedFile[];
}

/** The rows a file gives: its lines (the manifest's count, checked by its checksum) less those refused. */
const rowsOf = (f: StagedFile) => f.load.file.rows - f.bad.length;

/**
 * This session's own `<table>_batch`, temporary (the keyed table's columns in its
 * order, without its NOT NULLs: rows of files written before `_account` was are
 * given theirs in it, account-fill.ts). Its rows never reach the WAL, and the
 * target keeps no working table between loads.
 */
const sessionBatch = (table: TableName) =>
  `CREATE OR REPLACE TEMP TABLE ${table}_batch AS SELECT * FROM main.${table} LIMIT 0;`;

/**
 * One transaction's work on its tables, in table order: each table's files read
 * into the session's batch, the account given to rows that name none (`fill`),
 * merged by the recipe's statements, the count checked against the files', the
 * lines set aside recorded as load errors.
 */
export async function runTables(
  db: DuckdbSession,
  staged: StagedTable[],
  loads: ManifestLoads,
  hooks: {
    onTable: TableLoaded;
    fault: FaultPoint;
    fill: (table: TableName) => string | undefined;
    /** Whether the batch is appended to `<table>_raw` too (raw-tables.ts). */
    raw: boolean;
  },
): Promise<ManifestLoads> {
  const { onTable, fault } = hooks;
  for (const { table, files } of staged) {
    const paths = files.flatMap((f) => (f.path ? [f.path] : []));
    const keys = files.map((f) => f.load.file.key);
    const counted = await forTable(table, keys, async () => {
      await db.run(sessionBatch(table));
      const parquet = paths.filter(isParquet);
      await db.run(
        `SET VARIABLE helpdesk_files = [${paths
          .filter((p) => !isParquet(p))
          .map(quote)
          .join(', ')}]::VARCHAR[];`,
      );
      await db.run(`SET VARIABLE helpdesk_parquet_files = [${parquet.map(quote).join(', ')}]::VARCHAR[];`);
      await db.run(duckdbLandFiles(table));
      const fill = hooks.fill(table);
      if (fill) await db.run(fill);
      await db.run(duckdbMergeBatch(table, { raw: hooks.raw }));
      return Number((await db.read(`SELECT count(*)::INTEGER AS n FROM ${table}_batch`)).getRows()[0]?.[0]);
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

/** Whether the load's own insert takes a file: tried in a transaction that is rolled back. */
async function probe(
  db: DuckdbSession,
  table: TableName,
  file: string,
  before: readonly string[],
): Promise<string | undefined> {
  await db.run('BEGIN TRANSACTION');
  try {
    // The schema changes of the load first, so the probe meets the tables the load will.
    for (const statement of before) await db.run(statement);
    await db.run(sessionBatch(table));
    // Every column is read and typed (a count alone would skip the columns it does not need).
    const reader = isParquet(file)
      ? `read_parquet([${quote(file)}], hive_partitioning = false)`
      : `read_${table}([${quote(file)}])`;
    await db.run(`INSERT INTO ${table}_batch BY NAME SELECT * FROM ${reader}`);
    return undefined;
  } catch (error) {
    return reasonOf(error);
  } finally {
    await db.run('ROLLBACK');
  }
}

/** After a refused transaction: each file the table's reader refuses, split into its good and bad lines. */
export async function separate(
  db: DuckdbSession,
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
      if (!f.path || isParquet(f.path) || (await probe(db, s.table, f.path, before)) === undefined) {
        files.push(f);
        continue;
      }
      found = true;
      const split = await separateBadLines(f.path, (part) => probe(db, s.table, part, before), workDir);
      files.push({ load: f.load, path: split.path, bad: [...f.bad, ...split.bad] });
    }
    out.push({ table: s.table, files });
  }
  return found ? out : undefined;
}
