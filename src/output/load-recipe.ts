import { type DdlDialect, renderWarehouseDdl } from './ddl.js';
import { mergeStatement } from './merge-sql.js';
import { SCHEMA_SET_VERSION } from './rows/schema-version.js';
import { TABLE_NAMES, type TableName } from './tables.js';

/**
 * The warehouse script `schemas --format <dialect>` prints: the tables, then per
 * output table a load-and-merge recipe. Per table the warehouse keeps three tables:
 * `<table>` (current rows), `<table>_raw` (every version, append only: history, and
 * what the dbt sources read) and `<table>_batch` (the rows being loaded now). Each
 * recipe empties the batch table, loads the new files into it, appends it to
 * `_raw` and merges it into `<table>`, so a merge reads only the new rows. A table
 * with no new files (or none at all yet) loads nothing and changes nothing.
 */
export interface ScriptSection {
  /** `setup` (tables and helpers, idempotent) or the output table the recipe loads. */
  name: 'setup' | TableName;
  sql: string;
}

/** Where the files are, per dialect, when `--location` is not given. */
export const DEFAULT_LOCATIONS: Record<DdlDialect, string> = {
  duckdb: './out',
  postgres: './out',
  bigquery: 'gs://your-bucket/helpdesk',
  snowflake: '@helpdesk',
};

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
const trimSlash = (location: string) => location.replace(/\/+$/, '');

/**
 * DuckDB: `glob()` of a pattern matching no file is an empty list, while `read_json`
 * of it fails ("No files found that match the pattern"); `query()` with a constant
 * CASE reads the files only when there are some. A ledger table remembers the files
 * loaded, so running the whole script again loads and merges only new files.
 */
const DUCKDB_SETUP = `-- helpdesk_loaded_files: every file loaded, so that a file is loaded once
CREATE TABLE IF NOT EXISTS helpdesk_loaded_files (
  table_name VARCHAR NOT NULL,
  file VARCHAR PRIMARY KEY,
  loaded_at TIMESTAMPTZ NOT NULL DEFAULT now()
);`;

/**
 * DuckDB: the statements that load the files listed in the variable `helpdesk_files`
 * (none is fine) into `<table>_batch`, append them to `<table>_raw` and merge them
 * into `<table>`. The printed recipe sets the variable from a glob; `load` sets it
 * to the files of one manifest.
 */
export function duckdbMergeFiles(table: TableName): string {
  const read = quote(`FROM read_${table}(getvariable('helpdesk_files'))`);
  return [
    `DELETE FROM ${table}_batch;`,
    `INSERT INTO ${table}_batch SELECT * FROM query(CASE WHEN len(getvariable('helpdesk_files')) = 0`,
    `  THEN ${quote(`FROM ${table}_batch LIMIT 0`)} ELSE ${read} END);`,
    `INSERT INTO ${table}_raw SELECT * FROM ${table}_batch;`,
    mergeStatement('duckdb', table, `${table}_batch`),
  ].join('\n');
}

function duckdbRecipe(table: TableName, location: string): string {
  const pattern = `${trimSlash(location)}/${table}/*/*.jsonl.gz`;
  return [
    `-- ${table}: load the files not loaded yet (none is fine), then merge them`,
    'BEGIN TRANSACTION;',
    `SET VARIABLE helpdesk_files = (SELECT coalesce(list(file ORDER BY file), []::VARCHAR[]) FROM glob(${quote(pattern)})`,
    '  WHERE file NOT IN (SELECT file FROM helpdesk_loaded_files));',
    duckdbMergeFiles(table),
    `INSERT INTO helpdesk_loaded_files (table_name, file) SELECT ${quote(table)}, unnest(getvariable('helpdesk_files'));`,
    'COMMIT;',
  ].join('\n');
}

/**
 * PostgreSQL: COPY cannot read gzip or JSON, so lines are copied as text (CSV mode
 * with quote and delimiter bytes JSON never contains unescaped, so nothing is
 * unescaped) into `helpdesk_landing`, and `helpdesk_land(batch)` turns them into
 * typed rows with `jsonb_populate_record`. It moves all lines in one statement; if
 * any line fails (bad JSON, `\u0000`, which jsonb refuses, a value its column type
 * refuses), it moves them one by one instead and keeps each failing line, with the
 * error, in `helpdesk_load_errors`: one bad row does not cost its file.
 */
/** Lines that could not become rows, with the reason (the same text runs on DuckDB, where `load` keeps them too). */
export const LOAD_ERRORS_DDL = `-- helpdesk_load_errors: lines that could not become rows, with the reason
CREATE TABLE IF NOT EXISTS helpdesk_load_errors (
  table_name text NOT NULL,
  line text,
  error text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now()
);`;

const POSTGRES_SETUP = `-- helpdesk_landing: the lines of the files being loaded, as text (the COPY target)
CREATE TABLE IF NOT EXISTS helpdesk_landing (line text);
${LOAD_ERRORS_DDL}
-- helpdesk_land(batch): landing lines -> typed rows of the batch table; returns the rows moved
CREATE OR REPLACE FUNCTION helpdesk_land(batch regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  moved bigint := 0;
  one record;
BEGIN
  BEGIN
    EXECUTE format('INSERT INTO %s SELECT r.* FROM helpdesk_landing l, jsonb_populate_record(NULL::%s, l.line::jsonb) r', batch, batch);
    GET DIAGNOSTICS moved = ROW_COUNT;
  EXCEPTION WHEN others THEN
    moved := 0;
    FOR one IN SELECT line FROM helpdesk_landing LOOP
      BEGIN
        EXECUTE format('INSERT INTO %s SELECT * FROM jsonb_populate_record(NULL::%s, $1::jsonb)', batch, batch) USING one.line;
        moved := moved + 1;
      EXCEPTION WHEN others THEN
        INSERT INTO helpdesk_load_errors (table_name, line, error) VALUES (batch::text, one.line, SQLERRM);
      END;
    END LOOP;
  END;
  DELETE FROM helpdesk_landing;
  RETURN moved;
END
$$;`;

/** The COPY that fills helpdesk_landing from one decompressed file (psql). */
export const POSTGRES_COPY =
  "\\copy helpdesk_landing (line) FROM STDIN WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')";

/**
 * PostgreSQL: the statements that type the lines in `helpdesk_landing` into
 * `<table>_batch` (bad lines to `helpdesk_load_errors`), append them to
 * `<table>_raw` and merge them into `<table>`. Run in one transaction with the
 * COPY (or INSERT) that filled the landing table.
 */
export function postgresMergeLanded(table: TableName): string {
  return [
    `DELETE FROM ${table}_batch;`,
    `SELECT helpdesk_land('${table}_batch');`,
    `INSERT INTO ${table}_raw SELECT * FROM ${table}_batch;`,
    mergeStatement('postgres', table, `${table}_batch`),
  ].join('\n');
}

function postgresRecipe(table: TableName, location: string): string {
  const root = trimSlash(location);
  const keys = `jq -r '.files[] | select(.table == "${table}") | .key' ${root}/_manifests/$RUN_ID.json`;
  return [
    `-- ${table}: first copy the lines of the files one manifest lists (none is fine) into helpdesk_landing:`,
    `--   for key in $(${keys}); do gunzip -c "${root}/$key" | psql -c "${POSTGRES_COPY}"; done`,
    'BEGIN;',
    postgresMergeLanded(table),
    'COMMIT;',
  ].join('\n');
}

/**
 * BigQuery: LOAD DATA from the files of one manifest. A URI pattern that matches
 * no object fails the load, so a table the manifest lists no file for is left out
 * (its merge would change nothing anyway). A bad line is skipped and reported in
 * the job's errors rather than failing the file.
 */
function bigqueryRecipe(table: TableName, location: string): string {
  return [
    `-- ${table}: load the files of one manifest (leave the table out when it has none), then merge`,
    `TRUNCATE TABLE ${table}_batch;`,
    `LOAD DATA INTO ${table}_batch FROM FILES (format = 'JSON', max_bad_records = 100,`,
    `  uris = [${quote(`${trimSlash(location)}/${table}/*`)}]);`,
    `INSERT INTO ${table}_raw SELECT * FROM ${table}_batch;`,
    mergeStatement('bigquery', table, `${table}_batch`),
  ].join('\n');
}

/**
 * Snowflake: COPY skips files it has loaded into the same table before (load
 * metadata, kept 64 days) and loads nothing from an empty path, so the recipe can
 * run after every sync. The batch table is emptied with DELETE: TRUNCATE would
 * also forget which files were loaded. ON_ERROR = CONTINUE skips a bad line (the
 * COPY result reports it) instead of the whole file.
 */
function snowflakeRecipe(table: TableName, location: string): string {
  return [
    `-- ${table}: load the stage's new files (none is fine), then merge them`,
    `DELETE FROM ${table}_batch;`,
    `COPY INTO ${table}_batch FROM ${trimSlash(location)}/${table}/ PATTERN = '.*[.]jsonl[.]gz'`,
    '  FILE_FORMAT = (TYPE = JSON) MATCH_BY_COLUMN_NAME = CASE_INSENSITIVE ON_ERROR = CONTINUE;',
    `INSERT INTO ${table}_raw SELECT * FROM ${table}_batch;`,
    mergeStatement('snowflake', table, `${table}_batch`),
  ].join('\n');
}

const HOW_TO_RUN: Record<DdlDialect, string> = {
  duckdb: 'Run the whole script after each sync: it loads and merges the files not loaded yet.',
  snowflake: 'Run the whole script after each sync: COPY loads the files not loaded yet, and they are merged.',
  postgres: "Per table, copy the new files' lines into helpdesk_landing (see each recipe), then run its statements.",
  bigquery: "Per manifest, in run_id order: run each table's recipe with the URIs of that table's files.",
};

const SETUP_EXTRA: Partial<Record<DdlDialect, string>> = { duckdb: DUCKDB_SETUP, postgres: POSTGRES_SETUP };
const RECIPES: Record<DdlDialect, (table: TableName, location: string) => string> = {
  duckdb: duckdbRecipe,
  postgres: postgresRecipe,
  bigquery: bigqueryRecipe,
  snowflake: snowflakeRecipe,
};

/** The script in sections: setup first, then one load-and-merge recipe per table. */
export function warehouseScript(
  dialect: DdlDialect,
  tables: readonly TableName[] = TABLE_NAMES,
  location = DEFAULT_LOCATIONS[dialect],
): ScriptSection[] {
  const setup = [
    `-- helpdesk-sync tables for ${dialect}, schema set ${SCHEMA_SET_VERSION}; the setup statements are idempotent.\n-- ${HOW_TO_RUN[dialect]}`,
    renderWarehouseDdl(dialect, tables).trimEnd(),
    SETUP_EXTRA[dialect],
  ].filter((part) => part !== undefined);
  return [
    { name: 'setup', sql: setup.join('\n\n') },
    ...tables.map((t) => ({ name: t, sql: RECIPES[dialect](t, location) })),
  ];
}

/** The text `schemas --format <dialect>` prints. */
export function renderWarehouseScript(dialect: DdlDialect, tables?: readonly TableName[], location?: string): string {
  return `${warehouseScript(dialect, tables, location)
    .map((s) => s.sql)
    .join('\n\n')}\n`;
}
