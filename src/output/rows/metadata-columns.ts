import type { ColumnKind } from './table-spec.js';

export interface MetadataColumn {
  name: string;
  kind: ColumnKind;
  /** Every row has a value (tombstones included); only `_extra` may be null. */
  notNull: boolean;
  description: string;
}

/**
 * The metadata columns on every row, after the table's own columns and in this
 * order (docs/output.md, Output contract). The one list: normalization, the
 * JSON Schemas, the warehouse DDL, the merge SQL, the dbt export and the schema
 * version all read it, so a metadata column is added or changed here only.
 */
export const METADATA_COLUMN_SPECS = [
  { name: '_synced_at', kind: 'timestamp', notNull: true, description: 'when this row was written' },
  { name: '_run_id', kind: 'string', notNull: true, description: 'run that wrote this row' },
  {
    name: '_deleted',
    kind: 'bool',
    notNull: true,
    description: 'true: tombstone, the object was deleted at the source',
  },
  {
    name: '_extra',
    kind: 'object',
    notNull: false,
    description: 'fields the schema does not know, and values of the wrong type with _notes',
  },
  {
    // Last, so that a table schema evolution gave the column has it where a new table has it.
    name: '_account',
    kind: 'string',
    notNull: true,
    description:
      'the account the row comes from: its name under accounts:, else the organization slug GET /me answers; the first part of every key',
  },
] as const satisfies readonly MetadataColumn[];

export type MetadataColumnName = (typeof METADATA_COLUMN_SPECS)[number]['name'];

/**
 * The column naming the account a row comes from (docs/output.md, "Metadata
 * columns"): the first part of every table's key in the warehouse, so that the
 * accounts of a config share one set of tables without their keys meeting.
 */
export const ACCOUNT_COLUMN = '_account';

/** The metadata column names, in order. */
export const METADATA_COLUMNS: readonly MetadataColumnName[] = METADATA_COLUMN_SPECS.map((c) => c.name);
