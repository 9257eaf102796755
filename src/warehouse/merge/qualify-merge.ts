import type { TableName } from '../../output/tables.js';
import { columnNames, LATEST_FIRST } from '../table-columns.js';

/**
 * The dedup query of the warehouses with QUALIFY (DuckDB, BigQuery, Snowflake)
 * and the MERGE of BigQuery and Snowflake (DuckDB's is duckdb/duckdb-merge.ts):
 * the latest row per key wins, an older row never overwrites a newer one, a
 * tombstone deletes only an older row. `where` is BigQuery's `WHERE TRUE`
 * (it accepts QUALIFY only beside a WHERE, GROUP BY or HAVING clause).
 */
export function qualifyDedup(table: TableName, raw: string, where = ''): string {
  const { keys } = columnNames(table);
  return [
    `SELECT * FROM ${raw}${where ? `\n${where}` : ''}`,
    `QUALIFY ROW_NUMBER() OVER (PARTITION BY ${keys.join(', ')} ORDER BY ${LATEST_FIRST}) = 1`,
    `  AND NOT _deleted`,
  ].join('\n');
}

export function qualifyMerge(table: TableName, raw: string, where = ''): string {
  const { keys, all } = columnNames(table);
  const rest = all.filter((c) => !keys.includes(c));
  const on = keys.map((k) => `t.${k} = s.${k}`).join(' AND ');
  return [
    `MERGE INTO ${table} AS t`,
    `USING (`,
    `  SELECT * FROM ${raw}${where ? ` ${where}` : ''}`,
    `  QUALIFY ROW_NUMBER() OVER (PARTITION BY ${keys.join(', ')} ORDER BY ${LATEST_FIRST}) = 1`,
    `) AS s`,
    `ON ${on}`,
    `WHEN MATCHED AND s._synced_at >= t._synced_at AND s._deleted THEN DELETE`,
    `WHEN MATCHED AND s._synced_at >= t._synced_at THEN UPDATE SET ${rest.map((c) => `${c} = s.${c}`).join(', ')}`,
    `WHEN NOT MATCHED AND NOT s._deleted THEN INSERT (${all.join(', ')})`,
    `  VALUES (${all.map((c) => `s.${c}`).join(', ')});`,
  ].join('\n');
}
