import type { TableName } from '../../output/tables.js';
import { deleteInsertMerge } from '../delete-insert-merge.js';
import { columnNames, LATEST_FIRST } from '../table-columns.js';

/**
 * The rows of `source` that may become current: the latest of each key. Ranking
 * every row (a window over the whole batch, its text columns carried through
 * the sort) took most of a load's time, while a batch seldom holds a key twice.
 * So with a single-column key, the keys `source` holds more than once are found
 * first (a grouping of the key alone); rows of the other keys pass as they are,
 * and only the rows of repeated keys are ranked. Rows with a NULL key go with the
 * ranked ones, where they are ranked together as before. A composite key (one
 * small table) is ranked whole.
 */
function latestRows(source: string, keys: readonly string[]): string {
  const rank = `QUALIFY ROW_NUMBER() OVER (PARTITION BY ${keys.join(', ')} ORDER BY ${LATEST_FIRST}) = 1`;
  if (keys.length !== 1) return [`  SELECT * FROM ${source}`, `  ${rank}`].join('\n');
  const [key] = keys;
  const repeated = `SELECT ${key} FROM ${source} WHERE ${key} IS NOT NULL GROUP BY ${key} HAVING count(*) > 1`;
  return [
    `  SELECT * FROM ${source} WHERE ${key} IS NOT NULL AND ${key} NOT IN (${repeated})`,
    '  UNION ALL',
    `  SELECT * FROM ${source} WHERE ${key} IS NULL OR ${key} IN (${repeated})`,
    `  ${rank}`,
  ].join('\n');
}

/**
 * The condition that the key of `s` (one column) has no row in `table`: the
 * stored keys are found first (the table's rows whose key is in `source`: a hash
 * of the batch's keys, the table scanned against it), and `s` is then held
 * against those few. A correlated NOT EXISTS put the batch's whole rows, every
 * column, in the join's hash table (0.3 s of a 350 000-row first load); a plain
 * anti-join hashed every key of the table, growing with the warehouse. A NULL
 * key is never stored, as with NOT EXISTS.
 */
function notStored(table: TableName, source: string, key: string): string {
  const stored = `SELECT t.${key} FROM ${table} AS t WHERE t.${key} IN (SELECT ${key} FROM ${source})`;
  return `(s.${key} IS NULL OR s.${key} NOT IN (${stored}))`;
}

/**
 * DuckDB's merge of the rows of `source` into the keyed table, which has no
 * primary key constraint (duckdb-dialect.ts): the DELETE and INSERT of
 * delete-insert-merge.ts, where a MERGE that updates rows holds the updated
 * values in memory (a load of a million changed rows ran out of a 128 MB limit).
 * A composite key (one small table) keeps the correlated NOT EXISTS.
 */
export function duckdbMerge(table: TableName, source: string): string {
  const { keys } = columnNames(table);
  const [key] = keys;
  const check = keys.length === 1 && key ? notStored(table, source, key) : undefined;
  return deleteInsertMerge(table, source, latestRows(source, keys), check);
}
