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

/** Metadata columns of every table (docs/output.md): kind and NOT NULL. */
const METADATA: ReadonlyArray<[string, ColumnKind, boolean]> = [
  ['_synced_at', 'timestamp', true],
  ['_run_id', 'string', true],
  ['_deleted', 'bool', true],
  ['_extra', 'object', false],
];

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
    ...METADATA.map(([name, kind, notNull]) => ({ name, type: types[kind], notNull })),
  ];
}

function createTable(dialect: DdlDialect, table: TableName): string {
  const spec = TABLE_SPECS[table];
  // BigQuery only accepts unenforced keys; the others get a key the dedup query fills once per id.
  const key = `PRIMARY KEY (${spec.primaryKey.join(', ')})${dialect === 'bigquery' ? ' NOT ENFORCED' : ''}`;
  const lines = ddlColumns(dialect, table).map((c) => `  ${c.name} ${c.type}${c.notNull ? ' NOT NULL' : ''}`);
  return [
    `-- ${table}: ${spec.description} Primary key: ${spec.primaryKey.join(', ')}. schema_version ${SCHEMA_VERSIONS[table]}`,
    `CREATE TABLE IF NOT EXISTS ${table} (`,
    [...lines, `  ${key}`].join(',\n'),
    ');',
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

/** DDL of every table (or the given ones) in one dialect, with primary keys. */
export function renderDdl(dialect: DdlDialect, tables: readonly TableName[] = TABLE_NAMES): string {
  const parts = tables.map((t) => {
    const ddl = `${createTable(dialect, t)}`;
    return dialect === 'duckdb' ? `${ddl}\n${duckdbReader(t)}` : ddl;
  });
  return `${parts.join('\n\n')}\n`;
}
