import { METADATA_COLUMN_SPECS } from './rows/metadata-columns.js';
import { SCHEMA_VERSIONS } from './rows/schema-version.js';
import type { ColumnKind } from './rows/table-spec.js';
import { TABLE_SPECS } from './rows/table-specs.js';
import { TABLE_NAMES, type TableName } from './tables.js';

export const DDL_DIALECTS = ['duckdb', 'bigquery', 'snowflake', 'postgres'] as const;
export type DdlDialect = (typeof DDL_DIALECTS)[number];

type TypeMap = Record<ColumnKind, string>;

/**
 * Warehouse types per column kind. JSON objects and free-form arrays stay JSON
 * (JSON / jsonb / VARIANT); arrays of strings become native string arrays;
 * timestamps are zone-aware (the files carry UTC `Z`).
 */
const TYPES: Record<DdlDialect, TypeMap> = {
  duckdb: {
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
  },
  bigquery: {
    string: 'STRING',
    int: 'INT64',
    number: 'FLOAT64',
    bool: 'BOOL',
    timestamp: 'TIMESTAMP',
    date: 'DATE',
    string_array: 'ARRAY<STRING>',
    array: 'JSON',
    object: 'JSON',
    json: 'JSON',
  },
  snowflake: {
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
  },
  postgres: {
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
  },
};

export interface DdlColumn {
  name: string;
  type: string;
  notNull: boolean;
}

/** A table's columns with their types in one dialect, metadata included. */
export function ddlColumns(dialect: DdlDialect, table: TableName): DdlColumn[] {
  const spec = TABLE_SPECS[table];
  const types = TYPES[dialect];
  const keys = new Set<string>(spec.primaryKey);
  return [
    ...spec.columns.map((c) => ({ name: c.name, type: types[c.kind], notNull: keys.has(c.name) })),
    ...METADATA_COLUMN_SPECS.map((c) => ({ name: c.name, type: types[c.kind], notNull: c.notNull })),
  ];
}

/** The three tables a warehouse keeps per output table (see renderWarehouseDdl). */
export type TableRole = 'keyed' | 'raw' | 'batch';

export function roleTableName(table: TableName, role: TableRole): string {
  return role === 'keyed' ? table : `${table}_${role}`;
}

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

/** Storage options after the column list: partitioning and clustering per dialect and role. */
function tableOptions(dialect: DdlDialect, table: TableName, role: TableRole): string {
  const keys = TABLE_SPECS[table].primaryKey.join(', ');
  if (dialect === 'bigquery' && role !== 'batch') {
    // Day partitions of the write time; clustering by key makes the MERGE and the
    // dedup window read the key's blocks instead of the whole partition.
    return `\nPARTITION BY DATE(_synced_at)\nCLUSTER BY ${keys}`;
  }
  if (dialect === 'snowflake' && role === 'keyed' && SNOWFLAKE_CLUSTERED.has(table)) return `\nCLUSTER BY (${keys})`;
  return '';
}

const ROLE_NOTES: Record<TableRole, string> = {
  keyed: 'current rows, one per primary key',
  raw: 'every version of every row, tombstones included, as loaded (append only)',
  batch: 'the rows of the files being loaded now; emptied before each load',
};

function createTable(dialect: DdlDialect, table: TableName, role: TableRole): string {
  const spec = TABLE_SPECS[table];
  const name = roleTableName(table, role);
  // BigQuery only accepts unenforced keys; the others get a key the merge fills once per id.
  const key = `PRIMARY KEY (${spec.primaryKey.join(', ')})${dialect === 'bigquery' ? ' NOT ENFORCED' : ''}`;
  // Key and metadata columns are never null in the files, so NOT NULL holds for landing tables too.
  const lines = ddlColumns(dialect, table).map((c) => `  ${c.name} ${c.type}${c.notNull ? ' NOT NULL' : ''}`);
  const about =
    role === 'keyed'
      ? ` ${spec.description} Primary key: ${spec.primaryKey.join(', ')}. schema_version ${SCHEMA_VERSIONS[table]}`
      : '';
  return [
    `-- ${name}: ${ROLE_NOTES[role]}.${about}`,
    `CREATE TABLE IF NOT EXISTS ${name} (`,
    [...lines, ...(role === 'keyed' ? [`  ${key}`] : [])].join(',\n'),
    `)${tableOptions(dialect, table, role)};`,
  ].join('\n');
}

/**
 * DuckDB: a table macro that reads output files with exactly the DDL's column types.
 * Hive partitioning is off so the `dt=` folder does not add a column.
 */
function duckdbReader(table: TableName): string {
  const columns = ddlColumns('duckdb', table)
    .map((c) => `${c.name}: '${c.type}'`)
    .join(', ');
  return [
    `CREATE OR REPLACE MACRO read_${table}(files) AS TABLE`,
    `  SELECT * FROM read_json(files, format = 'newline_delimited', hive_partitioning = false, columns = {${columns}});`,
  ].join('\n');
}

/** DDL of the keyed tables (or the given ones) in one dialect, with primary keys; DuckDB adds `read_<table>(files)`. */
export function renderDdl(dialect: DdlDialect, tables: readonly TableName[] = TABLE_NAMES): string {
  return renderTables(dialect, tables, ['keyed']);
}

/**
 * DDL of the warehouse script: per output table the keyed table (with its primary
 * key), its landing table `<table>_raw` and its batch table `<table>_batch` (same
 * columns, no key); DuckDB adds a `read_<table>(files)` macro.
 */
export function renderWarehouseDdl(dialect: DdlDialect, tables: readonly TableName[] = TABLE_NAMES): string {
  return renderTables(dialect, tables, ['keyed', 'raw', 'batch']);
}

function renderTables(dialect: DdlDialect, tables: readonly TableName[], roles: readonly TableRole[]): string {
  const parts = tables.map((t) => {
    const ddl = roles.map((role) => createTable(dialect, t, role)).join('\n');
    return dialect === 'duckdb' ? `${ddl}\n${duckdbReader(t)}` : ddl;
  });
  return `${parts.join('\n\n')}\n`;
}
