import type { TableName } from '../../output/tables.js';
import { deleteInsertMerge } from '../merge/delete-insert-merge.js';
import { columnNames, LATEST_FIRST } from '../table-columns.js';

/** A key as one value DuckDB compares and hashes: the column itself, or a row of the columns (`(_account, id)`). */
const tuple = (keys: readonly string[], alias = '') => {
  const columns = keys.map((k) => `${alias}${k}`);
  return columns.length === 1 ? columns[0]! : `(${columns.join(', ')})`;
};

const noneNull = (keys: readonly string[], alias = '') => keys.map((k) => `${alias}${k} IS NOT NULL`).join(' AND ');
const someNull = (keys: readonly string[], alias = '') => keys.map((k) => `${alias}${k} IS NULL`).join(' OR ');

/**
 * The rows of `source` that may become current: the latest of each key. Ranking
 * every row (a window over the whole batch, its text columns carried through
 * the sort) took most of a load's time, while a batch seldom holds a key twice.
 * So the keys `source` holds more than once are found first (a grouping of the
 * key alone, `(_account, id)` compared as one row value, a hash join); rows of
 * the other keys pass as they are, and only the rows of repeated keys are
 * ranked. Rows with a NULL key part go with the ranked ones, where they are
 * ranked together as before.
 */
function latestRows(source: string, keys: readonly string[]): string {
  const rank = `QUALIFY ROW_NUMBER() OVER (PARTITION BY ${keys.join(', ')} ORDER BY ${LATEST_FIRST}) = 1`;
  const key = tuple(keys);
  const repeated = `SELECT ${keys.join(', ')} FROM ${source} WHERE ${noneNull(keys)} GROUP BY ${keys.join(', ')} HAVING count(*) > 1`;
  return [
    `  SELECT * FROM ${source} WHERE ${noneNull(keys)} AND ${key} NOT IN (${repeated})`,
    '  UNION ALL',
    `  SELECT * FROM ${source} WHERE ${someNull(keys)} OR ${key} IN (${repeated})`,
    `  ${rank}`,
  ].join('\n');
}

/**
 * The condition that the key of `s` has no row in `table`: the stored keys are
 * found first (the table's rows whose key is in `source`: a hash of the batch's
 * keys, the table scanned against it), and `s` is then held against those few.
 * A correlated NOT EXISTS put the batch's whole rows, every column, in the
 * join's hash table (0.3 s of a 350 000-row first load); a plain anti-join
 * hashed every key of the table, growing with the warehouse. A key with a NULL
 * part is never stored, as with NOT EXISTS.
 */
function notStored(table: TableName, source: string, keys: readonly string[]): string {
  const stored = `SELECT ${keys.map((k) => `t.${k}`).join(', ')} FROM ${table} AS t WHERE ${tuple(keys, 't.')} IN (SELECT ${keys.join(', ')} FROM ${source})`;
  return `(${someNull(keys, 's.')} OR ${tuple(keys, 's.')} NOT IN (${stored}))`;
}

/**
 * DuckDB's merge of the rows of `source` into the keyed table, which has no
 * primary key constraint (duckdb-dialect.ts): the DELETE and INSERT of
 * delete-insert-merge.ts, where a MERGE that updates rows holds the updated
 * values in memory (a load of a million changed rows ran out of a 128 MB limit).
 */
export function duckdbMerge(table: TableName, source: string): string {
  const { keys } = columnNames(table);
  return deleteInsertMerge(table, source, latestRows(source, keys), notStored(table, source, keys));
}
