import { z } from 'zod';
import { INT64_MAX, INT64_MIN } from '../normalize/integer-range.js';
import { TABLE_NAMES, type TableName } from '../tables.js';
import { METADATA_COLUMN_SPECS } from './metadata-columns.js';
import type { ColumnKind, ColumnSpec } from './table-spec.js';
import { TABLE_SPECS } from './table-specs.js';

/**
 * An `int` column's value: what a BIGINT holds, a safe integer as a number and
 * one beyond 2^53 as a bigint (as the sync reads it, exact-json). zod cannot
 * write a bigint into a JSON Schema: json-schema.ts writes this one as an
 * `integer` with the signed 64-bit bounds.
 */
export const INT_COLUMN = z.union([z.int(), z.bigint().min(INT64_MIN).max(INT64_MAX)]);

/**
 * zod row schemas, built from the column lists so that the two never disagree.
 * They are the source of schemas/<table>.json and are used by tests; the hot path
 * (normalize) checks values with the column kinds instead, which is much faster.
 */
function kindSchema(kind: ColumnKind): z.ZodType {
  switch (kind) {
    case 'string':
      return z.string();
    case 'int':
      return INT_COLUMN;
    case 'number':
      return z.number();
    case 'bool':
      return z.boolean();
    case 'timestamp':
      return z.iso.datetime({ offset: false });
    case 'date':
      return z.iso.date();
    case 'string_array':
      return z.array(z.string());
    case 'array':
      return z.array(z.unknown());
    case 'object':
      return z.record(z.string(), z.unknown());
    case 'json':
      return z.unknown();
  }
}

/** What the JSON Schema says of a kind that its `type` and `pattern` alone do not name. */
const KIND_NOTES: Partial<Record<ColumnKind, string>> = {
  timestamp: 'UTC date-time, ISO 8601 with milliseconds and Z',
  date: 'date, YYYY-MM-DD',
};

function columnSchema(column: ColumnSpec, isKey: boolean): z.ZodType {
  const base = kindSchema(column.kind);
  // Every column is present on every row; only primary-key columns are never null.
  const schema = isKey || column.kind === 'json' ? base : base.nullable();
  const description = describeColumn(column);
  return description ? schema.describe(description) : schema;
}

function describeColumn(column: ColumnSpec): string {
  return [column.description, KIND_NOTES[column.kind]].filter(Boolean).join('; ');
}

/** What each metadata column means (JSON Schema and dbt descriptions). */
export const METADATA_DESCRIPTIONS: Readonly<Record<string, string>> = Object.fromEntries(
  METADATA_COLUMN_SPECS.map((c) => [c.name, describeColumn(c)]),
);

// Metadata columns are never null except `_extra`: the same rule as a key column.
const metadataShape = Object.fromEntries(METADATA_COLUMN_SPECS.map((c) => [c.name, columnSchema(c, c.notNull)]));

function buildRowSchema(table: TableName) {
  const spec = TABLE_SPECS[table];
  const keys = new Set<string>(spec.primaryKey);
  const shape: Record<string, z.ZodType> = {};
  for (const column of spec.columns) shape[column.name] = columnSchema(column, keys.has(column.name));
  return z.strictObject({ ...shape, ...metadataShape });
}

export type RowSchema = ReturnType<typeof buildRowSchema>;

export const ROW_SCHEMAS = Object.fromEntries(TABLE_NAMES.map((t) => [t, buildRowSchema(t)])) as Record<
  TableName,
  RowSchema
>;
