import type { TableName } from '../../output/tables.js';
import type { Dialect } from '../dialect.js';
import { qualifyDedup, qualifyMerge } from '../qualify-merge.js';
import { sqlQuote, trimSlash, typedColumns } from '../table-columns.js';

/**
 * DuckDB: JSON objects and free-form arrays stay JSON; arrays of strings are
 * native VARCHAR[]; timestamps are zone-aware (the files carry UTC `Z`).
 */
const TYPES: Dialect['types'] = {
  string: 'VARCHAR',
  int: 'BIGINT',
  number: 'DOUBLE',
  bool: 'BOOLEAN',
  timestamp: 'TIMESTAMPTZ',
  date: 'DATE',
  string_array: 'VARCHAR[]',
  array: 'JSON',
  object: 'JSON',
  json: 'JSON',
};

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

/**
 * The statements that load the files listed in the variable `helpdesk_files`
 * (none is fine) into `<table>_batch`, append them to `<table>_raw` and merge them
 * into `<table>`. The printed recipe sets the variable from a glob; `load` sets it
 * to the files of one manifest. By name: a table that schema evolution added a
 * column to has it last, where the reader has it in schema order.
 */
export function duckdbMergeFiles(table: TableName): string {
  const read = sqlQuote(`FROM read_${table}(getvariable('helpdesk_files'))`);
  return [
    `DELETE FROM ${table}_batch;`,
    `INSERT INTO ${table}_batch BY NAME SELECT * FROM query(CASE WHEN len(getvariable('helpdesk_files')) = 0`,
    `  THEN ${sqlQuote(`FROM ${table}_batch LIMIT 0`)} ELSE ${read} END);`,
    `INSERT INTO ${table}_raw BY NAME SELECT * FROM ${table}_batch;`,
    qualifyMerge(table, `${table}_batch`),
  ].join('\n');
}

function recipe(table: TableName, location: string): string {
  const pattern = `${trimSlash(location)}/${table}/*/*.jsonl.gz`;
  return [
    `-- ${table}: load the files not loaded yet (none is fine), then merge them`,
    'BEGIN TRANSACTION;',
    `SET VARIABLE helpdesk_files = (SELECT coalesce(list(file ORDER BY file), []::VARCHAR[]) FROM glob(${sqlQuote(pattern)})`,
    '  WHERE file NOT IN (SELECT file FROM helpdesk_loaded_files));',
    duckdbMergeFiles(table),
    `INSERT INTO helpdesk_loaded_files (table_name, file) SELECT ${sqlQuote(table)}, unnest(getvariable('helpdesk_files'));`,
    'COMMIT;',
  ].join('\n');
}

export const DUCKDB: Dialect = {
  name: 'duckdb',
  types: TYPES,
  primaryKey: (keys) => `PRIMARY KEY (${keys.join(', ')})`,
  tableOptions: () => '',
  afterTables: reader,
  dedupQuery: (table, raw) => qualifyDedup(table, raw),
  mergeStatement: (table, raw) => qualifyMerge(table, raw),
  setupExtra: SETUP,
  recipe,
  defaultLocation: './out',
  howToRun: 'Run the whole script after each sync: it loads and merges the files not loaded yet.',
};
