import type { OutputFormat } from '../../output/object-keys.js';
import type { TableName } from '../../output/tables.js';
import { LOAD_ERRORS_DDL } from '../bookkeeping.js';
import type { Dialect } from '../dialect.js';
import { deleteInsertMerge } from '../merge/delete-insert-merge.js';
import { columnNames, LATEST_FIRST, trimSlash } from '../table-columns.js';

const TYPES: Dialect['types'] = {
  string: 'text',
  int: 'bigint',
  number: 'double precision',
  bool: 'boolean',
  timestamp: 'timestamptz',
  date: 'date',
  string_array: 'text[]',
  array: 'jsonb',
  object: 'jsonb',
  json: 'jsonb',
};

/** PostgreSQL has no QUALIFY: DISTINCT ON keeps the first row per key in the ORDER BY. */
function dedupQuery(table: TableName, raw: string): string {
  const { keys } = columnNames(table);
  return [
    `SELECT * FROM (`,
    `  SELECT DISTINCT ON (${keys.join(', ')}) * FROM ${raw}`,
    `  ORDER BY ${keys.join(', ')}, ${LATEST_FIRST}`,
    `) latest`,
    `WHERE NOT _deleted`,
  ].join('\n');
}

/** How the batch is known to hold its keys: `uniqueKeys`, each key in one row at most. */
export interface BatchShape {
  uniqueKeys?: boolean;
}

/**
 * The DELETE and plain INSERT of delete-insert-merge.ts, the latest row per key
 * by DISTINCT ON. An `INSERT … ON CONFLICT DO UPDATE` inserts each row
 * speculatively, checking the key's index before and after: 2.05 s for the
 * 350 000 messages of the load benchmark's first load, against 1.20 s for this
 * form; and a common table expression read twice (the upsert's and the
 * tombstones' delete) was written out to disk whole. Ranking only the repeated
 * keys, as DuckDB does, took 1.70 s: the grouping of the keys spills at the
 * default `work_mem`.
 *
 * DISTINCT ON sorts the batch's whole rows (written to disk at the default
 * `work_mem`: 0.56 s of the 1.42 s INSERT of those messages). When the batch is
 * known to hold each key once (`load` sees every key as it encodes the rows:
 * batch-keys.ts), every row is its key's latest and the rows are taken as they
 * are. The printed recipe cannot know, and ranks.
 */
export function postgresMerge(table: TableName, raw: string, shape: BatchShape = {}): string {
  const k = columnNames(table).keys.join(', ');
  const latest = shape.uniqueKeys
    ? `  SELECT * FROM ${raw}`
    : `  SELECT DISTINCT ON (${k}) * FROM ${raw} ORDER BY ${k}, ${LATEST_FIRST}`;
  return deleteInsertMerge(table, raw, latest);
}

/**
 * COPY cannot read gzip or JSON, so lines are copied as text (CSV mode with quote
 * and delimiter bytes JSON never contains unescaped, so nothing is unescaped) into
 * `helpdesk_landing`, and `helpdesk_land(batch)` turns them into typed rows with
 * `json_populate_record` (the line read as `json`, which is only checked, not
 * converted to jsonb's binary form first as `jsonb_populate_record` would: about
 * a fifth of the typing's time). It moves all lines in one statement; if any line
 * fails (bad JSON, `\u0000`, which text and jsonb columns refuse, a value its column type refuses), it
 * moves them one by one instead and keeps each failing line, with the error, in
 * `helpdesk_load_errors`: one bad row does not cost its file.
 */
const SETUP = `-- helpdesk_landing: the lines of the files being loaded, as text (the COPY target)
CREATE TABLE IF NOT EXISTS helpdesk_landing (line text);
${LOAD_ERRORS_DDL}
-- helpdesk_land(batch): landing lines -> typed rows of the batch table; returns the rows moved
CREATE OR REPLACE FUNCTION helpdesk_land(batch regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  moved bigint := 0;
  one record;
BEGIN
  BEGIN
    EXECUTE format('INSERT INTO %s SELECT r.* FROM helpdesk_landing l, json_populate_record(NULL::%s, l.line::json) r', batch, batch);
    GET DIAGNOSTICS moved = ROW_COUNT;
  EXCEPTION WHEN others THEN
    moved := 0;
    FOR one IN SELECT line FROM helpdesk_landing LOOP
      BEGIN
        EXECUTE format('INSERT INTO %s SELECT * FROM json_populate_record(NULL::%s, $1::json)', batch, batch) USING one.line;
        moved := moved + 1;
      EXCEPTION WHEN others THEN
        INSERT INTO helpdesk_load_errors (table_name, line, error) VALUES (batch::text, one.line, SQLERRM);
      END;
    END LOOP;
  END;
  TRUNCATE helpdesk_landing;
  RETURN moved;
END
$$;`;

/** The COPY that fills helpdesk_landing from one decompressed file (psql). */
export const POSTGRES_COPY =
  "\\copy helpdesk_landing (line) FROM STDIN WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')";

/** Types the lines in `helpdesk_landing` into `<table>_batch` (bad lines to `helpdesk_load_errors`); its one value: the rows moved. */
export function postgresLand(table: TableName): string {
  return `SELECT helpdesk_land('${table}_batch');`;
}

/**
 * Merges `<table>_batch` into `<table>`; with `raw` (load.keep_raw) appends it to
 * `<table>_raw` first. The append names its columns: schema evolution adds a
 * column last, and a column set aside keeps its place, so the two tables may
 * hold the same columns in different orders.
 */
export function postgresMergeBatch(table: TableName, shape: BatchShape, options: { raw: boolean }): string {
  const columns = columnNames(table).all.join(', ');
  const append = options.raw ? [`INSERT INTO ${table}_raw (${columns}) SELECT ${columns} FROM ${table}_batch;`] : [];
  return [...append, postgresMerge(table, `${table}_batch`, shape)].join('\n');
}

/**
 * The statements that type the lines in `helpdesk_landing` into `<table>_batch`
 * (bad lines to `helpdesk_load_errors`) and merge them into `<table>`. Run in one transaction with the COPY (or INSERT) that
 * filled the landing table. `load` runs the same statements, typing each file's
 * lines as it lands them and merging once per table and transaction.
 */
function postgresMergeLanded(table: TableName): string {
  return [`TRUNCATE ${table}_batch;`, postgresLand(table), postgresMergeBatch(table, {}, { raw: false })].join('\n');
}

function recipe(table: TableName, location: string, _files?: OutputFormat, after: readonly string[] = []): string {
  const root = trimSlash(location);
  const keys = `jq -r '.files[] | select(.table == "${table}") | .key' ${root}/_manifests/$RUN_ID.json`;
  return [
    `-- ${table}: first copy the lines of the files one manifest lists (none is fine) into helpdesk_landing:`,
    `--   for key in $(${keys}); do gunzip -c "${root}/$key" | psql -c "${POSTGRES_COPY}"; done`,
    'BEGIN;',
    postgresMergeLanded(table),
    ...after,
    'COMMIT;',
  ].join('\n');
}

export const POSTGRES: Dialect = {
  name: 'postgres',
  types: TYPES,
  primaryKey: (keys) => `PRIMARY KEY (${keys.join(', ')})`,
  tableOptions: () => '',
  dedupQuery,
  mergeStatement: (table, raw) => postgresMerge(table, raw),
  setupExtra: SETUP,
  recipe,
  defaultLocation: './out',
  howToRun: "Per table, copy the new files' lines into helpdesk_landing (see each recipe), then run its statements.",
  contentHash: (c) => `md5(json_build_array(${c.join(', ')})::text)`,
  // PostgreSQL has no CREATE OR REPLACE TABLE.
  createOrReplace: false,
};
