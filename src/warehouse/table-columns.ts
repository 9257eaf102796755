import { METADATA_COLUMN_SPECS, METADATA_COLUMNS } from '../output/rows/metadata-columns.js';
import { TABLE_SPECS } from '../output/rows/table-specs.js';
import type { TableName } from '../output/tables.js';
import type { TableRole, TypeMap } from './dialect.js';

export interface DdlColumn {
  name: string;
  type: string;
  notNull: boolean;
}

/** A table's columns with their types in one dialect, metadata included. */
export function typedColumns(types: TypeMap, table: TableName): DdlColumn[] {
  const spec = TABLE_SPECS[table];
  const keys = new Set<string>(spec.rowKey);
  return [
    ...spec.columns.map((c) => ({ name: c.name, type: types[c.kind], notNull: keys.has(c.name) })),
    ...METADATA_COLUMN_SPECS.map((c) => ({ name: c.name, type: types[c.kind], notNull: c.notNull })),
  ];
}

/**
 * Every column name of a table in file order (its own, then metadata), and its
 * key in the warehouse: `_account`, then the table's primary key (TableSpec.rowKey).
 */
export function columnNames(table: TableName): { keys: readonly string[]; all: string[] } {
  const spec = TABLE_SPECS[table];
  return { keys: spec.rowKey, all: [...spec.columns.map((c) => c.name), ...METADATA_COLUMNS] };
}

export function roleTableName(table: TableName, role: TableRole): string {
  return role === 'keyed' ? table : `${table}_${role}`;
}

/** Order of versions of one key: the latest `_synced_at` wins, ties broken by the later `_run_id`. */
export const LATEST_FIRST = '_synced_at DESC, _run_id DESC';

export const sqlQuote = (text: string) => `'${text.replaceAll("'", "''")}'`;
export const trimSlash = (location: string) => location.replace(/\/+$/, '');
