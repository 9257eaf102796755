import { METADATA_COLUMN_SPECS } from '../rows/metadata-columns.js';
import type { ColumnKind } from '../rows/table-spec.js';
import { TABLE_SPECS } from '../rows/table-specs.js';
import type { TableName } from '../tables.js';

/**
 * The engine's type of each column kind in a Parquet file, as it lands there:
 * VARCHAR → string (UTF8), BIGINT → INT64, DOUBLE, BOOLEAN, TIMESTAMPTZ → INT64
 * TIMESTAMP(MICROS, isAdjustedToUTC), DATE → INT32 DATE, VARCHAR[] → LIST of
 * strings, JSON → a string column of logical type JSON (free-form objects and
 * arrays keep their nesting as JSON text, which every lake engine parses).
 */
export const PARQUET_ENGINE_TYPES: Readonly<Record<ColumnKind, string>> = {
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
};

/** A table's columns (its own, then metadata) with their kinds, in file order. */
export function fileColumns(table: TableName): Array<{ name: string; kind: ColumnKind }> {
  return [...TABLE_SPECS[table].columns, ...METADATA_COLUMN_SPECS].map((c) => ({ name: c.name, kind: c.kind }));
}

/** The `columns = {…}` struct of a typed `read_json` of one table's JSONL: every column, with its Parquet type. */
export function jsonColumnsStruct(table: TableName): string {
  return `{${fileColumns(table)
    .map((c) => `${c.name}: '${PARQUET_ENGINE_TYPES[c.kind]}'`)
    .join(', ')}}`;
}

/**
 * A timestamp as the JSONL writes it: milliseconds, or microseconds when it has
 * them. DuckDB's node package works without its ICU extension (which an offline
 * machine cannot load), and without it a TIMESTAMPTZ is formatted in UTC.
 */
function isoText(column: string): string {
  const at = (fraction: string) => `strftime(${column}, '%Y-%m-%dT%H:%M:%S.${fraction}Z')`;
  return `CASE WHEN microsecond(${column}) % 1000 = 0 THEN ${at('%g')} ELSE ${at('%f')} END`;
}

/**
 * The SELECT that gives one table's Parquet rows the values of its JSONL lines
 * (timestamps and dates as text, everything else as typed), column for column.
 */
export function jsonLineSelect(table: TableName, from: string): string {
  const columns = fileColumns(table).map((c) => {
    if (c.kind === 'timestamp') return `${isoText(c.name)} AS ${c.name}`;
    if (c.kind === 'date') return `strftime(${c.name}, '%Y-%m-%d') AS ${c.name}`;
    return c.name;
  });
  return `SELECT ${columns.join(', ')} FROM ${from}`;
}
