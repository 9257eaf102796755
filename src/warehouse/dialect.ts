import type { OutputFormat } from '../output/object-keys.js';
import type { ColumnKind } from '../output/rows/table-spec.js';
import type { TableName } from '../output/tables.js';

/**
 * The tables a warehouse keeps per output table: the keyed table, the batch the
 * printed recipes load each load's files into (renderWarehouseDdl), and `_raw`
 * where a load keeps every version (load.keep_raw).
 */
export type TableRole = 'keyed' | 'raw' | 'batch';

/** Warehouse types per column kind. */
export type TypeMap = Record<ColumnKind, string>;

/**
 * What one warehouse knows, in its own folder (`src/warehouse/<name>/`): its
 * column types, table options, the dedup query and the merge, and the printed
 * recipe. The shapes every dialect shares (the three tables, the script's
 * order) are written once, above them, by ddl.ts and warehouse-script.ts.
 */
export interface Dialect {
  /** Its engine's name, its key in the registry (src/warehouse/engines.ts, dialects.ts). */
  readonly name: string;
  readonly types: TypeMap;
  /**
   * The primary key clause of a keyed table; undefined where the table is created
   * without one (the merge keeps the key unique; the key is still documented).
   */
  primaryKey(keys: readonly string[]): string | undefined;
  /** Storage options after the column list (partitioning, clustering), '' for none. */
  tableOptions(table: TableName, role: TableRole): string;
  /** DDL after a table's three tables (DuckDB's `read_<table>` macro); undefined for none. */
  afterTables?(table: TableName): string;
  /** SELECT of the current rows of `raw` (latest version per key, tombstones dropped). */
  dedupQuery(table: TableName, raw: string): string;
  /** The statement merging the rows of `raw` into the keyed table. */
  mergeStatement(table: TableName, raw: string): string;
  /** Helpers the script's setup adds after the tables; undefined for none. */
  readonly setupExtra?: string;
  /**
   * One table's load-and-merge recipe, reading files at `location` written in
   * `files` format (default JSONL); `after`: statements run after the merge, in
   * its transaction where the recipe has one (history mode).
   */
  recipe(table: TableName, location: string, files?: OutputFormat, after?: readonly string[]): string;
  /** Where the files are when `--location` is not given. */
  readonly defaultLocation: string;
  /** The script's second line: how to run it. */
  readonly howToRun: string;
  /** A version's content hash over `columns`, the warehouse's way (history mode compares versions by it). */
  contentHash(columns: readonly string[]): string;
  /** Whether it has CREATE OR REPLACE TABLE (else a table is replaced by a DROP, then a CREATE). */
  readonly createOrReplace: boolean;
}
