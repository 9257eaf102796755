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
   * reads `id` of the embedded `contact` object. An embedded object read this way keeps
   * its other fields in `_extra` (under its own name), unless the table `consumes` it
   * (the contact of a conversation lives in the contacts table). A record that already
   * carries the column's own name is read from there when the source object is absent
   * (a tombstone holds the key column alone). A name without a dot is a plain rename:
   * `from: "extra"` reads the field `extra` (and, failing that, the column's own name),
   * so a source field can get a column name that cannot be mistaken for a metadata column.
   */
  from?: string;
  description?: string;
}

/*
 * Shorthands for the column lists of src/catalog/streams/. Field names and types come
 * from the API document ("Resources and their fields"); where it shows no type
 * (inbox, user, business-hours profile, holiday) the sandbox's documented wire shape
 * is used. Changing a list changes the table's schema_version and must regenerate schemas/.
 */

/** One column: a string unless told otherwise. */
export const column = (name: string, kind: ColumnKind = 'string', extra: Partial<ColumnSpec> = {}): ColumnSpec => ({
  name,
  kind,
  ...extra,
});
export const strings = (...names: string[]): ColumnSpec[] => names.map((n) => column(n));
export const bools = (...names: string[]): ColumnSpec[] => names.map((n) => column(n, 'bool'));
export const stamps = (...names: string[]): ColumnSpec[] => names.map((n) => column(n, 'timestamp'));
