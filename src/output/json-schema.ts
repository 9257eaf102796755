import { z } from 'zod';
import { ROW_SCHEMAS } from './rows/row-schemas.js';
import { SCHEMA_VERSIONS } from './rows/schema-version.js';
import { TABLE_SPECS } from './rows/table-specs.js';
import type { TableName } from './tables.js';

/**
 * JSON Schema (draft 2020-12) of one table's rows, from its zod row schema:
 * every column required (present on every row), non-key columns nullable, no
 * other property allowed, plus `x-primary-key` and `x-schema-version`.
 */
export function tableJsonSchema(table: TableName): Record<string, unknown> {
  const { $schema, ...body } = z.toJSONSchema(ROW_SCHEMAS[table], { target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
  return {
    $schema,
    $id: `urn:helpdesk-sync:table:${table}`,
    title: table,
    description: TABLE_SPECS[table].description,
    'x-primary-key': [...TABLE_SPECS[table].primaryKey],
    'x-schema-version': SCHEMA_VERSIONS[table],
    ...body,
  };
}

/** The exact text of schemas/<table>.json. */
export function renderJsonSchemaFile(table: TableName): string {
  return `${JSON.stringify(tableJsonSchema(table), null, 2)}\n`;
}
