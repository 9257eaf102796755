import type { OutputFormat } from '../../output/object-keys.js';
import { fileColumns } from '../../output/parquet/parquet-columns.js';
import { TABLE_SPECS } from '../../output/rows/table-specs.js';
import type { TableName } from '../../output/tables.js';
import type { Dialect, TableRole } from '../dialect.js';
import { qualifyDedup, qualifyMerge } from '../merge/qualify-merge.js';
import { trimSlash, typedColumns } from '../table-columns.js';

const TYPES: Dialect['types'] = {
  string: 'VARCHAR',
  int: 'NUMBER(38,0)',
  number: 'FLOAT',
  bool: 'BOOLEAN',
  timestamp: 'TIMESTAMP_TZ',
  date: 'DATE',
  string_array: 'ARRAY',
  array: 'ARRAY',
  object: 'VARIANT',
  json: 'VARIANT',
};

/**
 * Snowflake clusters only the keyed tables that grow with the conversations. A MERGE
 * joins on the key; with rows clustered by key the join can prune micro-partitions
 * whose key range misses the batch. Small dimension tables (tags, inboxes, users,
 * hours, holidays, reports) fit in a few micro-partitions, where automatic
 * clustering would cost credits for nothing. Landing tables are not clustered:
 * they are appended in load order, so they are already clustered by `_synced_at`.
 */
export const SNOWFLAKE_CLUSTERED: ReadonlySet<TableName> = new Set([
  'conversations',
  'messages',
  'thread_events',
  'attachments',
  'contacts',
]);

function tableOptions(table: TableName, role: TableRole): string {
  if (role !== 'keyed' || !SNOWFLAKE_CLUSTERED.has(table)) return '';
  return `\nCLUSTER BY (${TABLE_SPECS[table].rowKey.join(', ')})`;
}

/**
 * COPY skips files it has loaded into the same table before (load metadata, kept
 * 64 days) and loads nothing from an empty path, so the recipe can run after
 * every sync. The batch table is therefore a table of its own, not a temporary
 * one (a new table would load every file again), emptied with DELETE: TRUNCATE
 * would also forget which files were loaded. ON_ERROR = CONTINUE skips a bad line (the COPY result
 * reports it) instead of the whole file.
 */
function recipe(
  table: TableName,
  location: string,
  files: OutputFormat = 'jsonl',
  after: readonly string[] = [],
): string {
  const copy =
    files === 'parquet'
      ? parquetCopy(table, location)
      : [
          `COPY INTO ${table}_batch FROM ${trimSlash(location)}/${table}/ PATTERN = '.*[.]jsonl[.]gz'`,
          '  FILE_FORMAT = (TYPE = JSON) MATCH_BY_COLUMN_NAME = CASE_INSENSITIVE ON_ERROR = CONTINUE;',
        ];
  return [
    `-- ${table}: load the stage's new files (none is fine), then merge them`,
    `DELETE FROM ${table}_batch;`,
    ...copy,
    qualifyMerge(table, `${table}_batch`),
    ...after,
  ].join('\n');
}

/**
 * Parquet files: each column read from the file's row (`GET($1, '<column>')`) and cast to
 * the table's type; a JSON column holds JSON text, parsed into its VARIANT or
 * ARRAY. USE_LOGICAL_TYPE reads the microsecond UTC timestamps as timestamps.
 */
function parquetCopy(table: TableName, location: string): string[] {
  const columns = typedColumns(TYPES, table);
  const kinds = new Map(fileColumns(table).map((c) => [c.name, c.kind]));
  const value = (name: string, type: string) => {
    const kind = kinds.get(name);
    const field = `GET($1, '${name}')`;
    if (kind === 'array' || kind === 'object' || kind === 'json') return `PARSE_JSON(${field}::VARCHAR)`;
    return `${field}::${type}`;
  };
  return [
    `COPY INTO ${table}_batch (${columns.map((c) => c.name).join(', ')})`,
    `  FROM (SELECT ${columns.map((c) => value(c.name, c.type)).join(', ')}`,
    `    FROM ${trimSlash(location)}/${table}/) PATTERN = '.*[.]parquet'`,
    '  FILE_FORMAT = (TYPE = PARQUET USE_LOGICAL_TYPE = TRUE) ON_ERROR = CONTINUE;',
  ];
}

export const SNOWFLAKE: Dialect = {
  name: 'snowflake',
  types: TYPES,
  primaryKey: (keys) => `PRIMARY KEY (${keys.join(', ')})`,
  tableOptions,
  dedupQuery: (table, raw) => qualifyDedup(table, raw),
  mergeStatement: (table, raw) => qualifyMerge(table, raw),
  recipe,
  defaultLocation: '@helpdesk',
  howToRun: 'Run the whole script after each sync: COPY loads the files not loaded yet, and they are merged.',
  contentHash: (c) => `HASH(${c.join(', ')})`,
  createOrReplace: true,
};
