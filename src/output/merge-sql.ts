import type { DdlDialect } from './ddl.js';
import { METADATA_COLUMNS } from './rows/metadata-columns.js';
import { TABLE_SPECS } from './rows/table-specs.js';
import type { TableName } from './tables.js';

/**
 * SQL that turns loaded rows (every version of every row, tombstones included,
 * in `<table>_raw`) into one current row per primary key: the latest
 * `_synced_at` wins (ties broken by the later `_run_id`), and a key whose latest
 * row is a tombstone disappears. These are the queries docs/output.md shows.
 */
function columnsOf(table: TableName): { keys: readonly string[]; all: string[] } {
  const spec = TABLE_SPECS[table];
  return {
    keys: spec.primaryKey,
    all: [...spec.columns.map((c) => c.name), ...METADATA_COLUMNS],
  };
}

const LATEST_FIRST = '_synced_at DESC, _run_id DESC';

/** SELECT of the current rows (a view definition, or the body of a rebuild). */
export function dedupQuery(dialect: DdlDialect, table: TableName, raw = `${table}_raw`): string {
  const { keys } = columnsOf(table);
  if (dialect === 'postgres') {
    return [
      `SELECT * FROM (`,
      `  SELECT DISTINCT ON (${keys.join(', ')}) * FROM ${raw}`,
      `  ORDER BY ${keys.join(', ')}, ${LATEST_FIRST}`,
      `) latest`,
      `WHERE NOT _deleted`,
    ].join('\n');
  }
  // BigQuery accepts QUALIFY only beside a WHERE, GROUP BY or HAVING clause.
  const where = dialect === 'bigquery' ? '\nWHERE TRUE' : '';
  return [
    `SELECT * FROM ${raw}${where}`,
    `QUALIFY ROW_NUMBER() OVER (PARTITION BY ${keys.join(', ')} ORDER BY ${LATEST_FIRST}) = 1`,
    `  AND NOT _deleted`,
  ].join('\n');
}

/** Incremental merge of newly loaded rows into the keyed table (MERGE; Postgres: upsert + delete). */
export function mergeStatement(dialect: DdlDialect, table: TableName, raw = `${table}_raw`): string {
  const { keys, all } = columnsOf(table);
  const rest = all.filter((c) => !keys.includes(c));
  if (dialect === 'postgres') return postgresMerge(table, raw, keys, all, rest);
  const where = dialect === 'bigquery' ? ' WHERE TRUE' : '';
  const on = keys.map((k) => `t.${k} = s.${k}`).join(' AND ');
  return [
    `MERGE INTO ${table} AS t`,
    `USING (`,
    `  SELECT * FROM ${raw}${where}`,
    `  QUALIFY ROW_NUMBER() OVER (PARTITION BY ${keys.join(', ')} ORDER BY ${LATEST_FIRST}) = 1`,
    `) AS s`,
    `ON ${on}`,
    `WHEN MATCHED AND s._synced_at >= t._synced_at AND s._deleted THEN DELETE`,
    `WHEN MATCHED AND s._synced_at >= t._synced_at THEN UPDATE SET ${rest.map((c) => `${c} = s.${c}`).join(', ')}`,
    `WHEN NOT MATCHED AND NOT s._deleted THEN INSERT (${all.join(', ')})`,
    `  VALUES (${all.map((c) => `s.${c}`).join(', ')});`,
  ].join('\n');
}

function postgresMerge(table: string, raw: string, keys: readonly string[], all: string[], rest: string[]): string {
  const k = keys.join(', ');
  return [
    `WITH latest AS (`,
    `  SELECT DISTINCT ON (${k}) * FROM ${raw} ORDER BY ${k}, ${LATEST_FIRST}`,
    `), gone AS (`,
    `  DELETE FROM ${table} t USING latest s`,
    `  WHERE ${keys.map((c) => `t.${c} = s.${c}`).join(' AND ')} AND s._deleted AND s._synced_at >= t._synced_at`,
    `)`,
    `INSERT INTO ${table} (${all.join(', ')})`,
    `SELECT ${all.join(', ')} FROM latest WHERE NOT _deleted`,
    `ON CONFLICT (${k}) DO UPDATE SET ${rest.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`,
    `  WHERE ${table}._synced_at <= EXCLUDED._synced_at;`,
  ].join('\n');
}
