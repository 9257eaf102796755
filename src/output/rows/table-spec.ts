import type { TableName } from '../tables.js';

/**
 * How a column's value is checked and written. Every kind is nullable except
 * primary-key columns, which a row cannot lack (it is rejected instead).
 * - `string`, `int` (safe integer), `number`, `bool`: the JSON type, nothing coerced.
 * - `timestamp`: ISO-8601 date-time, written as UTC `YYYY-MM-DDTHH:MM:SS.sssZ`.
 * - `date`: written as `YYYY-MM-DD`.
 * - `string_array`: array of strings. `array`: any JSON array.
 * - `object`: a JSON object (free-form). `json`: any JSON value.
 */
export type ColumnKind =
  | 'string'
  | 'int'
  | 'number'
  | 'bool'
  | 'timestamp'
  | 'date'
  | 'string_array'
  | 'array'
  | 'object'
  | 'json';

export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
  /**
   * Where the value comes from when it is not the field of the same name: `contact.id`
   * reads `id` of the embedded `contact` object (the embedded object is then consumed,
   * it does not land in `_extra`). A record that already carries the column's own
   * name is read from there when the source object is absent. A name without a dot is a
   * plain rename: `from: "extra"` reads the field `extra` (and, failing that, the column's
   * own name), so a source field can get a column name that cannot be mistaken for a
   * metadata column.
   */
  from?: string;
  description?: string;
}

export interface TableSpec {
  name: TableName;
  primaryKey: readonly string[];
  columns: readonly ColumnSpec[];
  /** Fields read but not kept as such (embedded objects mapped to foreign keys, child lists). */
  consumes: readonly string[];
  description: string;
}
