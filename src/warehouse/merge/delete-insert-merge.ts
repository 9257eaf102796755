import type { TableName } from '../../output/tables.js';
import { columnNames } from '../table-columns.js';

/**
 * The merge of DuckDB and PostgreSQL: the rows of `source` merged into the keyed
 * table as a DELETE and an INSERT, with the same rows as a MERGE or an upsert
 * (the latest row per key wins, an older row never overwrites a newer one, a
 * tombstone deletes only an older row). The DELETE drops each stored row that
 * some row of `source` is at least as new as (then the latest one is too); the
 * INSERT adds the latest live row of each key that has no stored row left (one
 * that was newer stays). So a key is never stored twice. Both are plain joins,
 * which spill under a memory limit and insert without speculation (why each
 * engine uses it: duckdb/duckdb-merge.ts, postgres/postgres-dialect.ts). Run both
 * in one transaction, as `load` and the recipes do.
 *
 * `latest` selects the latest row of each key of `source` (each engine its own
 * way); `notStored`, the condition on `s` that its key has no row in the table,
 * defaults to a correlated NOT EXISTS.
 */
export function deleteInsertMerge(table: TableName, source: string, latest: string, notStored?: string): string {
  const { keys, all } = columnNames(table);
  const on = keys.map((k) => `t.${k} = s.${k}`).join(' AND ');
  return [
    `DELETE FROM ${table} AS t USING ${source} AS s`,
    `WHERE ${on} AND s._synced_at >= t._synced_at;`,
    `INSERT INTO ${table} (${all.join(', ')})`,
    `SELECT ${all.map((c) => `s.${c}`).join(', ')} FROM (`,
    latest,
    `) AS s`,
    `WHERE NOT s._deleted AND ${notStored ?? `NOT EXISTS (SELECT 1 FROM ${table} AS t WHERE ${on})`};`,
  ].join('\n');
}
