import { stringify } from 'yaml';
import { CATALOG_TABLES, type CatalogTable } from '../catalog/catalog.js';
import { METADATA_COLUMNS } from '../output/rows/metadata-columns.js';
import { METADATA_DESCRIPTIONS } from '../output/rows/row-schemas.js';
import { SCHEMA_SET_VERSION, SCHEMA_VERSIONS } from '../output/rows/schema-version.js';
import type { ColumnKind, ColumnSpec } from '../output/rows/table-spec.js';
import { TABLE_SPECS } from '../output/rows/table-specs.js';
import { TABLE_NAMES, type TableName } from '../output/tables.js';
import { historyDbtFiles } from './history/history-dbt.js';

/**
 * A dbt project fragment over the tables `load` keeps (`<table>`, the current
 * rows: direct load keeps no second copy of every version, docs/loading.md):
 * one source with freshness on `_synced_at`, and per table a staging model
 * `stg_helpdesk__<table>` keeping the latest version of each key (the account,
 * then the table's key: the accounts of a config share the tables), tombstones
 * dropped, with key tests. The table already holds one live row per key; the
 * model ranks anyway, so it reads `<table>_raw` (load.keep_raw) as well when a
 * project points its source there. Property syntax of dbt 1.10+ (`config.freshness`,
 * `config.loaded_at_field`, `data_tests`). The SQL is plain enough for every
 * warehouse the project prints DDL for (window function in a subquery: Postgres has
 * no QUALIFY).
 */
export const DBT_SOURCE = 'helpdesk';
export const DBT_DIR = 'models/staging/helpdesk';

/** What each table's declaration says for dbt: the API document's resource its rows come from, and freshness. */
const DBT = Object.fromEntries(CATALOG_TABLES.map((t) => [t.name, t.dbt])) as Record<TableName, CatalogTable['dbt']>;

const DOC_TYPES: Record<ColumnKind, string> = {
  string: 'string',
  int: 'integer',
  number: 'number',
  bool: 'boolean',
  timestamp: 'date-time, UTC',
  date: 'date',
  string_array: 'array of string',
  array: 'array',
  object: 'object',
  json: 'any JSON value',
};

function columnDescription(table: TableName, column: ColumnSpec): string {
  const field = column.from ? `\`${column.from}\`` : `\`${column.name}\``;
  // "Identifiers are strings (UUID-formatted)" (API document, Conventions).
  const isId = column.kind === 'string' && (column.name === 'id' || column.name.endsWith('_id'));
  const type = isId ? 'string, UUID-formatted identifier' : DOC_TYPES[column.kind];
  const origin = `${field} of the ${DBT[table].resource} (${type})`;
  return column.description ? `${column.description}. From ${origin}.` : `From ${origin}.`;
}

export const stagingModel = (table: TableName) => `stg_${DBT_SOURCE}__${table}`;

/**
 * `_synced_at` is when a version was written, and a run writes only rows that
 * changed, so it measures the time since the last change, not since the last run.
 * Conversations and their threads change every day in a working helpdesk; the
 * settings tables can go weeks without a change, so their declarations turn
 * freshness off.
 */
export const DBT_NO_FRESHNESS: ReadonlySet<TableName> = new Set(
  CATALOG_TABLES.filter((t) => !t.dbt.freshness).map((t) => t.name),
);

function sourcesYaml(): string {
  const tables = TABLE_NAMES.map((t) => ({
    name: t,
    identifier: t,
    ...(DBT_NO_FRESHNESS.has(t) ? { config: { freshness: null } } : {}),
    description: `${TABLE_SPECS[t].description} The current rows, one per key (schema_version ${SCHEMA_VERSIONS[t]}).`,
    columns: [
      ...TABLE_SPECS[t].columns.map((c) => ({ name: c.name, description: columnDescription(t, c) })),
      ...Object.entries(METADATA_DESCRIPTIONS).map(([name, description]) => ({ name, description })),
    ],
  }));
  return stringify({
    version: 2,
    sources: [
      {
        name: DBT_SOURCE,
        description: `Tables loaded from helpdesk-sync files (schema set ${SCHEMA_SET_VERSION}).`,
        schema: `{{ var('${DBT_SOURCE}_schema', target.schema) }}`,
        config: {
          loaded_at_field: '_synced_at',
          freshness: { warn_after: { count: 26, period: 'hour' }, error_after: { count: 50, period: 'hour' } },
        },
        tables,
      },
    ],
  });
}

function modelsYaml(): string {
  const models = TABLE_NAMES.map((t) => {
    const keys = TABLE_SPECS[t].rowKey;
    // Every key is composite (the account first): its parts get not_null here, and
    // uniqueness comes from the table's singular test (keyUniqueTest).
    return {
      name: stagingModel(t),
      description: `Current ${t}: the latest version of each ${keys.join(' + ')} (by _synced_at, then _run_id), tombstones dropped.`,
      columns: stagingColumns(t).map((name) => ({
        name,
        ...(keys.includes(name) ? { data_tests: ['not_null'] } : {}),
      })),
    };
  });
  return stringify({ version: 2, models });
}

/** Metadata of a staging model: all but `_deleted` (always false there). */
const STAGED_METADATA = METADATA_COLUMNS.filter((name) => name !== '_deleted');

/** Columns of the staging model: the table's columns, then metadata without `_deleted`. */
export function stagingColumns(table: TableName): string[] {
  return [...TABLE_SPECS[table].columns.map((c) => c.name), ...STAGED_METADATA];
}

export function stagingSql(table: TableName): string {
  const keys = TABLE_SPECS[table].rowKey.join(', ');
  const columns = stagingColumns(table)
    .map((c) => `    ${c}`)
    .join(',\n');
  return [
    `-- The current ${table}: the latest version of each key, tombstones dropped.`,
    'with ranked as (',
    '    select',
    '        *,',
    `        row_number() over (partition by ${keys} order by _synced_at desc, _run_id desc) as _version_rank`,
    `    from {{ source('${DBT_SOURCE}', '${table}') }}`,
    ')',
    'select',
    columns,
    'from ranked',
    'where _version_rank = 1 and not _deleted',
    '',
  ].join('\n');
}

/**
 * dbt's generic `unique` takes one column, and every key is composite (the
 * account, then the table's key): each table gets a singular test of its key
 * (no package needed).
 */
export function keyUniqueTest(table: TableName): string {
  const parts = TABLE_SPECS[table].rowKey;
  const keys = parts.join(', ');
  return [
    `-- Fails (returns rows) when a key of ${stagingModel(table)} appears twice or has a null part.`,
    `select ${keys}, count(*) as versions`,
    `from {{ ref('${stagingModel(table)}') }}`,
    `group by ${keys}`,
    `having count(*) > 1 or ${parts.map((k) => `${k} is null`).join(' or ')}`,
    '',
  ].join('\n');
}

/** Where a table's key test lives in the fragment. */
export const keyUniqueTestPath = (table: TableName) => `tests/assert_${stagingModel(table)}_key_is_unique.sql`;

/** The fragment as relative path → file content. */
export function dbtProjectFiles(): Record<string, string> {
  const files: Record<string, string> = {
    [`${DBT_DIR}/_${DBT_SOURCE}__sources.yml`]: sourcesYaml(),
    [`${DBT_DIR}/_${DBT_SOURCE}__models.yml`]: modelsYaml(),
    ...historyDbtFiles(),
  };
  for (const t of TABLE_NAMES) {
    files[`${DBT_DIR}/${stagingModel(t)}.sql`] = stagingSql(t);
    files[keyUniqueTestPath(t)] = keyUniqueTest(t);
  }
  return files;
}
