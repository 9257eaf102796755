import { CATALOG_TABLES, type CatalogTable } from '../../catalog/catalog.js';
import type { TableName } from '../tables.js';
import { ACCOUNT_COLUMN } from './metadata-columns.js';
import type { TableSpec } from './table-spec.js';

/**
 * The columns of every output table, in file order, as the streams declare them
 * (src/catalog/streams/). A column read from an embedded object (`contact.id`)
 * consumes that object; its other fields go to `_extra` unless the table says it
 * consumes the object whole.
 */
function spec(table: CatalogTable): TableSpec {
  const consumed: readonly string[] = 'consumes' in table ? table.consumes : [];
  const roots = table.columns.flatMap((col) => (col.from ? [col.from.split('.')[0]!] : []));
  const embedded = table.columns.flatMap((col) => (col.from?.includes('.') ? [col.from.split('.')[0]!] : []));
  return {
    name: table.name,
    primaryKey: table.primaryKey,
    rowKey: [ACCOUNT_COLUMN, ...table.primaryKey],
    columns: table.columns,
    consumes: [...new Set([...roots, ...consumed])],
    keepsRest: [...new Set(embedded.filter((root) => !consumed.includes(root)))],
    description: table.description,
  };
}

export const TABLE_SPECS = Object.fromEntries(CATALOG_TABLES.map((t) => [t.name, spec(t)])) as Record<
  TableName,
  TableSpec
>;

/** Metadata columns on every row, after the table's own columns: one list, in metadata-columns.ts. */
export { METADATA_COLUMNS } from './metadata-columns.js';
