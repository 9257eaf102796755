import { shortTextHash } from '../../canonical-json.js';
import { TABLE_NAMES, type TableName } from '../tables.js';
import { METADATA_COLUMNS, TABLE_SPECS } from './table-specs.js';

function describeTable(table: TableName): string {
  const spec = TABLE_SPECS[table];
  const columns = spec.columns.map((c) => `${c.name}:${c.kind}`).concat(METADATA_COLUMNS);
  return `${table}(${columns.join(',')})pk(${spec.rowKey.join(',')})`;
}

/**
 * A table's schema version: a short hash of its column names, kinds and key
 * (the row key, `_account` first), so it changes exactly when the file contract changes and needs no manual
 * bumping. Recorded per file in manifests; loaders can refuse unknown versions.
 */
export const SCHEMA_VERSIONS = Object.fromEntries(
  TABLE_NAMES.map((t) => [t, shortTextHash(describeTable(t))]),
) as Record<TableName, string>;

/** Version of a whole set of table versions (the manifest's top-level `schema_version`). */
export function schemaSetVersionOf(versions: Record<TableName, string>): string {
  return shortTextHash(TABLE_NAMES.map((t) => `${t}@${versions[t]}`).join(';'));
}

/** Version of the whole set of tables, no privacy policy applied. */
export const SCHEMA_SET_VERSION = schemaSetVersionOf(SCHEMA_VERSIONS);
