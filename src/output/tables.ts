import { CATALOG_TABLES, type TableName } from '../catalog/catalog.js';

export type { TableName };

/**
 * Output tables and their primary keys (docs/output.md), in catalog order: each
 * table is declared, with its columns, by the stream that writes it (src/catalog/streams/).
 */
export const TABLES: Readonly<Record<TableName, readonly string[]>> = Object.fromEntries(
  CATALOG_TABLES.map((t): [string, readonly string[]] => [t.name, t.primaryKey]),
) as Record<TableName, readonly string[]>;

export const TABLE_NAMES: readonly TableName[] = CATALOG_TABLES.map((t) => t.name);
