import { isPlainObject } from '../../plain-object.js';
import type { TableName } from '../tables.js';
import type { ColumnSpec } from './table-spec.js';
import { TABLE_SPECS } from './table-specs.js';

/** A key part as a string: a non-empty string, or a finite number (a bigint too); anything else is no key (the row is rejected). */
function keyPart(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') return String(value);
  return undefined;
}

/** The raw value a column reads (see ColumnSpec.from): a field, a renamed field, or a field of an embedded object. */
function sourceValue(record: Record<string, unknown>, column: ColumnSpec): unknown {
  if (column.from === undefined) return record[column.name];
  const [root = '', field] = column.from.split('.');
  const source = record[root];
  if (source === undefined || source === null) return record[column.name];
  if (field === undefined) return source;
  return isPlainObject(source) ? source[field] : undefined;
}

/**
 * The primary key of a record as its table will key the row, before it is
 * normalized: the key columns read as the normalizer reads them, joined by `|`
 * (`inbox_id|date`); undefined when a part is missing (the normalizer rejects such
 * a record). A full-refresh stream fingerprints and tombstones records by it.
 */
export function recordKey(table: TableName): (record: unknown) => string | undefined {
  const spec = TABLE_SPECS[table];
  const columns = spec.primaryKey.map((name) => spec.columns.find((c) => c.name === name) as ColumnSpec);
  return (record) => {
    if (!isPlainObject(record)) return undefined;
    const parts: string[] = [];
    for (const column of columns) {
      const part = keyPart(sourceValue(record, column));
      if (part === undefined) return undefined;
      parts.push(part);
    }
    return parts.join('|');
  };
}
