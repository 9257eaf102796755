import { SCHEMA_VERSIONS } from '../output/rows/schema-version.js';
import { TABLE_SPECS } from '../output/rows/table-specs.js';
import { TABLE_NAMES, type TableName } from '../output/tables.js';
import type { Dialect, TableRole } from './dialect.js';
import { roleTableName, typedColumns } from './table-columns.js';

const ROLE_NOTES: Record<TableRole, string> = {
  keyed: 'current rows, one per primary key',
  raw: 'every version of every row, tombstones included, as loaded (append only)',
  batch: "the rows of one load's files, the stage the merge reads; emptied before each load",
};

/** Where a dialect creates keyed tables without the constraint, the comment says who keeps the key unique. */
const UNCONSTRAINED = ' (no constraint: the merge keeps one row per key)';

/** One table of one role: the keyed table has the primary key (where the dialect declares one); key and metadata columns are NOT NULL in every role. */
export function createTable(dialect: Dialect, table: TableName, role: TableRole): string {
  const spec = TABLE_SPECS[table];
  const name = roleTableName(table, role);
  // Key and metadata columns are never null in the files, so NOT NULL holds for landing tables too.
  const lines = typedColumns(dialect.types, table).map((c) => `  ${c.name} ${c.type}${c.notNull ? ' NOT NULL' : ''}`);
  const key = role === 'keyed' ? dialect.primaryKey(spec.rowKey) : undefined;
  const about =
    role === 'keyed'
      ? ` ${spec.description} Primary key: ${spec.rowKey.join(', ')}${key === undefined ? UNCONSTRAINED : ''}. schema_version ${SCHEMA_VERSIONS[table]}`
      : '';
  return [
    `-- ${name}: ${ROLE_NOTES[role]}.${about}`,
    `CREATE TABLE IF NOT EXISTS ${name} (`,
    [...lines, ...(key === undefined ? [] : [`  ${key}`])].join(',\n'),
    `)${dialect.tableOptions(table, role)};`,
  ].join('\n');
}

/** DDL of the keyed tables (or the given ones) in one dialect, with primary keys; DuckDB adds `read_<table>(files)`. */
export function renderDdl(dialect: Dialect, tables: readonly TableName[] = TABLE_NAMES): string {
  return renderTables(dialect, tables, ['keyed']);
}

/**
 * DDL of the warehouse script: per output table the keyed table (with its primary
 * key) and its batch table `<table>_batch` (same columns, no key), which each
 * recipe empties and loads one load's files into; DuckDB adds a
 * `read_<table>(files)` macro. No table keeps a second copy of every version
 * (direct load, docs/loading.md).
 */
export function renderWarehouseDdl(dialect: Dialect, tables: readonly TableName[] = TABLE_NAMES): string {
  return renderTables(dialect, tables, ['keyed', 'batch']);
}

/** The tables of the given roles per output table; `after`: the dialect's DDL after them (DuckDB's `read_<table>`). */
export function renderTables(
  dialect: Dialect,
  tables: readonly TableName[],
  roles: readonly TableRole[],
  after = true,
): string {
  const parts = tables.map((t) => {
    const ddl = roles.map((role) => createTable(dialect, t, role)).join('\n');
    return after && dialect.afterTables ? `${ddl}\n${dialect.afterTables(t)}` : ddl;
  });
  return `${parts.join('\n\n')}\n`;
}
