import type { OutputFormat } from '../../output/object-keys.js';
import { PARQUET_ENGINE_TYPES } from '../../output/parquet/parquet-columns.js';
import type { TableName } from '../../output/tables.js';
import type { Dialect } from '../dialect.js';
import { qualifyDedup } from '../merge/qualify-merge.js';
import { sqlQuote, trimSlash, typedColumns } from '../table-columns.js';
import { duckdbMerge } from './duckdb-merge.js';

/**
 * DuckDB: JSON objects and free-form arrays stay JSON; arrays of strings are
 * native VARCHAR[]; timestamps are zone-aware (the files carry UTC `Z`). The
 * same engine types the Parquet writer gives each column kind.
 */
const TYPES: Dialect['types'] = PARQUET_ENGINE_TYPES;

/**
 * A table macro that reads output files with exactly the DDL's column types.
 * Hive partitioning is off so the `dt=` folder does not add a column.
 */
function reader(table: TableName): string {
  const columns = typedColumns(TYPES, table)
    .map((c) => `${c.name}: '${c.type}'`)
    .join(', ');
  return [
    `CREATE OR REPLACE MACRO read_${table}(files) AS TABLE`,
    `  SELECT * FROM read_json(files, format = 'newline_delimited', hive_partitioning = false, columns = {${columns}});`,
  ].join('\n');
}

/**
 * `glob()` of a pattern matching no file is an empty list, while `read_json` of it
 * fails ("No files found that match the pattern"); `query()` with a constant CASE
 * reads the files only when there are some. A ledger table remembers the files
 * loaded, so running the whole script again loads and merges only new files.
 */
const SETUP = `-- helpdesk_loaded_files: every file loaded, so that a file is loaded once
CREATE TABLE IF NOT EXISTS helpdesk_loaded_files (
  table_name VARCHAR NOT NULL,
  file VARCHAR PRIMARY KEY,
  loaded_at TIMESTAMPTZ NOT NULL DEFAULT now()
);`;

/** Inserts into the batch the files a variable lists, read by `reader`; none listed reads nothing. */
function insertFiles(table: TableName, variable: string, reader: string): string[] {
  const read = sqlQuote(
    `FROM ${reader}(getvariable('${variable}')${reader === 'read_parquet' ? ', hive_partitioning = false' : ''})`,
  );
  return [
    `INSERT INTO ${table}_batch BY NAME SELECT * FROM query(CASE WHEN len(getvariable('${variable}')) = 0`,
    `  THEN ${sqlQuote(`FROM ${table}_batch LIMIT 0`)} ELSE ${read} END);`,
  ];
}

/**
 * The statements that load the files listed in the variables `helpdesk_files`
 * (gzip JSONL) and `helpdesk_parquet_files` (Parquet, typed already; none is fine
 * for either) into `<table>_batch`. The printed recipe sets the variables from
 * globs; `load` sets them to the files of its transaction's manifests. Both land
 * before the one merge, so a folder holding both formats (the format changed
 * between runs) merges as one batch.
 */
export function duckdbLandFiles(table: TableName): string {
  return [
    `DELETE FROM ${table}_batch;`,
    ...insertFiles(table, 'helpdesk_files', `read_${table}`),
    ...insertFiles(table, 'helpdesk_parquet_files', 'read_parquet'),
  ].join('\n');
}

/**
 * Merges `<table>_batch` into `<table>`; with `raw` (load.keep_raw) appends it to
 * `<table>_raw` first. By name: a table that schema evolution added a column to
 * has it last, where the reader has it in schema order.
 */
export function duckdbMergeBatch(table: TableName, options: { raw: boolean }): string {
  const append = options.raw ? [`INSERT INTO ${table}_raw BY NAME SELECT * FROM ${table}_batch;`] : [];
  return [...append, duckdbMerge(table, `${table}_batch`)].join('\n');
}

/** The files of the variables landed in `<table>_batch` and merged into `<table>`. */
function duckdbMergeFiles(table: TableName): string {
  return `${duckdbLandFiles(table)}\n${duckdbMergeBatch(table, { raw: false })}`;
}

/** The files of one table not loaded yet, by ending, into a variable. */
function unloaded(variable: string, pattern: string): string[] {
  return [
    `SET VARIABLE ${variable} = (SELECT coalesce(list(file ORDER BY file), []::VARCHAR[]) FROM glob(${sqlQuote(pattern)})`,
    '  WHERE file NOT IN (SELECT file FROM helpdesk_loaded_files));',
  ];
}

/** One recipe for both formats: a folder may hold gzip JSONL, Parquet, or both (the format changed between runs). */
function recipe(table: TableName, location: string, _files?: OutputFormat, after: readonly string[] = []): string {
  const folder = `${trimSlash(location)}/${table}/*/*`;
  return [
    `-- ${table}: load the files not loaded yet (none is fine; .jsonl.gz and .parquet), then merge them`,
    'BEGIN TRANSACTION;',
    ...unloaded('helpdesk_files', `${folder}.jsonl.gz`),
    ...unloaded('helpdesk_parquet_files', `${folder}.parquet`),
    duckdbMergeFiles(table),
    ...after,
    `INSERT INTO helpdesk_loaded_files (table_name, file) SELECT ${sqlQuote(table)},`,
    "  unnest(list_concat(getvariable('helpdesk_files'), getvariable('helpdesk_parquet_files')));",
    'COMMIT;',
  ].join('\n');
}

export const DUCKDB: Dialect = {
  name: 'duckdb',
  types: TYPES,
  primaryKey: () => undefined,
  tableOptions: () => '',
  afterTables: reader,
  dedupQuery: (table, raw) => qualifyDedup(table, raw),
  mergeStatement: (table, raw) => duckdbMerge(table, raw),
  setupExtra: SETUP,
  recipe,
  defaultLocation: './out',
  howToRun: 'Run the whole script after each sync: it loads and merges the files not loaded yet.',
  contentHash: (c) => `md5(json_array(${c.join(', ')})::VARCHAR)`,
  createOrReplace: true,
};
