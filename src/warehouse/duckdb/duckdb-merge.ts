import type { TableName } from '../../output/tables.js';
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
 * The rows of `s` whose key has no row in `table`. With one key column, the
 * stored keys are found first (the table's rows whose key is in `source`: a
 * hash of the batch's keys, the table scanned against it), and `s` is then held
 * against those few. A correlated NOT EXISTS put the batch's whole rows, every
 * column, in the join's hash table (0.3 s of a 350 000-row first load); a plain
 * anti-join hashed every key of the table, growing with the warehouse. A NULL
 * key is never stored, as with NOT EXISTS.
 */
function notStored(table: TableName, source: string, keys: readonly string[], on: string): string {
  if (keys.length !== 1) return `NOT EXISTS (SELECT 1 FROM ${table} AS t WHERE ${on})`;
  const [key] = keys;
  const stored = `SELECT t.${key} FROM ${table} AS t WHERE t.${key} IN (SELECT ${key} FROM ${source})`;
  return `(s.${key} IS NULL OR s.${key} NOT IN (${stored}))`;
}

/**
 * DuckDB's merge of the rows of `source` into the keyed table, which has no
 * primary key constraint (duckdb-dialect.ts): the same rows as the MERGE of the
 * other QUALIFY warehouses (the latest row per key wins, an older row never
 * overwrites a newer one, a tombstone deletes only an older row), as a DELETE
 * and an INSERT. The DELETE drops each stored row that some row of `source` is
 * at least as new as (then the latest one is too); the INSERT adds the latest
 * live row of each key that has no stored row left (one that was newer stays).
 * So a key is never stored twice. Both are joins by hash that spill under a
 * memory limit, where a MERGE that updates rows holds the updated values in
 * memory (a load of a million changed rows ran out of a 128 MB limit).
 */
export function duckdbMerge(table: TableName, source: string): string {
  const { keys, all } = columnNames(table);
  const on = keys.map((k) => `t.${k} = s.${k}`).join(' AND ');
  return [
    `DELETE FROM ${table} AS t USING ${source} AS s`,
    `WHERE ${on} AND s._synced_at >= t._synced_at;`,
    `INSERT INTO ${table} (${all.join(', ')})`,
    `SELECT ${all.map((c) => `s.${c}`).join(', ')} FROM (`,
    latestRows(source, keys),
    `) AS s`,
    `WHERE NOT s._deleted AND ${notStored(table, source, keys, on)};`,
  ].join('\n');
}
