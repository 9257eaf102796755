import type { ColumnKind } from '../../output/rows/table-spec.js';

/** A column as the warehouse's catalog describes it. */
export interface CatalogColumn {
  table: string;
  column: string;
  /** The catalog's name of the type (DuckDB `TIMESTAMP WITH TIME ZONE`, PostgreSQL `timestamp with time zone`). */
  type: string;
}

/** A change of type that keeps every value: which stored values would not convert, and the statement that converts. */
export interface Conversion {
  /** A condition on `col` (the column's name) true for a stored value that would not convert losslessly. */
  lossy: string;
  /** ALTER TABLE … that converts the column in place. */
  alter: string;
}

/** A table's primary key constraint as the catalog holds it. */
export interface StoredKey {
  table: string;
  constraint: string;
  columns: string[];
}

/**
 * What one warehouse `load` runs knows about changing its tables (schema
 * evolution, docs/loading.md "Schema evolution"): how its catalog names each
 * column kind, how to read the catalog, how to add a column, and which type
 * changes it converts losslessly.
 */
export interface Evolution {
  /** The catalog's name of each column kind's type. */
  readonly catalogTypes: Record<ColumnKind, string>;
  /** SELECT table_name, column_name, data_type of the given tables, in column order. */
  catalogQuery(tables: readonly string[]): string;
  addColumn(table: string, column: string, type: string): string;
  /**
   * Adds a NOT NULL column, every stored row given `value` (none: the table holds
   * no row), so its tables end as a new table has it.
   */
  addFilledColumn(table: string, column: string, type: string, value: string | undefined): string[];
  /**
   * SELECT table_name, constraint_name, columns (the key's columns in order) of
   * the primary keys of the given tables; undefined where keyed tables have no
   * constraint (DuckDB: the merge keeps the key unique).
   */
  primaryKeyQuery?(tables: readonly string[]): string;
  /** Replaces a table's primary key constraint with one on `keys`. */
  replacePrimaryKey?(key: StoredKey, keys: readonly string[]): string[];
  /** A conversion from the stored type to the kind, or undefined when none keeps every value. */
  conversion(table: string, column: string, from: string, to: ColumnKind): Conversion | undefined;
  /** Sets a column aside under another name, so that evolution can add it with its new type. */
  renameColumn(table: string, column: string, to: string): string;
  dropColumn(table: string, column: string): string;
}

export const sqlList = (names: readonly string[]) => names.map((n) => `'${n.replaceAll("'", "''")}'`).join(', ');

/** One way a warehouse table differs from the schema set being loaded. */
export interface SchemaDifference {
  table: string;
  /** The column; for a `key` difference, the key's columns. */
  column: string;
  kind: 'missing' | 'type' | 'extra' | 'key';
  /** The warehouse's type (the catalog's words), or key; absent for a missing column. */
  stored?: string;
  /** The expected type (the catalog's words), or key; absent for an extra column. */
  expected?: string;
  /** Under evolve: the statements that make it right, or why none can. */
  change?: string[];
  blocked?: string;
  /** The statements a person can run to fix it (shown with a blocked difference or under freeze). */
  fix: string[];
}

/** What a warehouse is asked for: its catalog, and a count (lossless checks). */
export interface SchemaReader {
  readonly describe: string;
  readonly dialectTypes: Record<ColumnKind, string>;
  readonly evolution: Evolution;
  catalog(tables: readonly string[]): Promise<CatalogColumn[]>;
  /** The primary keys of the given tables, where keyed tables have one (Evolution.primaryKeyQuery). */
  primaryKeys?(tables: readonly string[]): Promise<StoredKey[]>;
  count(sql: string): Promise<number>;
}

/** A column as the schema set expects it in a warehouse table. */
export interface Expected {
  column: string;
  kind?: ColumnKind;
  type: string;
  catalogType: string;
  notNull: boolean;
}
