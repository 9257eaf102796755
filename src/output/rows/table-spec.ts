import type { ColumnSpec } from '../../catalog/columns.js';
import type { TableName } from '../tables.js';

export type { ColumnKind, ColumnSpec } from '../../catalog/columns.js';

/** A table as the output layer reads it: its catalog declaration, with what normalization needs resolved. */
export interface TableSpec {
  name: TableName;
  /** The key of a record within its account, as the stream declares it (what the sync fingerprints and rejects by). */
  primaryKey: readonly string[];
  /**
   * The key of a row in the files and the warehouse: `_account`, then `primaryKey`.
   * What `$defs.primary_key`, the DDL, every merge, history and dbt key on, so the
   * accounts of a config share one set of tables.
   */
  rowKey: readonly string[];
  columns: readonly ColumnSpec[];
  /** Fields read but not kept as such (embedded objects mapped to columns, child lists). */
  consumes: readonly string[];
  /**
   * Embedded objects read for some columns (`from: "organization.slug"`) whose other
   * fields are kept in `_extra` under the object's name: nothing of them is dropped.
   */
  keepsRest: readonly string[];
  description: string;
}
