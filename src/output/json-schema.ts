import { z } from 'zod';
import { NO_PRIVACY, type PrivacyPolicy } from './privacy/privacy-policy.js';
import { ROW_SCHEMAS } from './rows/row-schemas.js';
import { TABLE_SPECS } from './rows/table-specs.js';
import type { TableName } from './tables.js';

/**
 * `format` is an annotation in draft 2020-12, and ajv in its default strict mode
 * refuses a schema whose formats it has not been given ("unknown format
 * \"date-time\" ignored in schema"). Timestamps and dates keep the `pattern` that
 * checks them exactly, and say what they are in `description`.
 */
function withoutFormat(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutFormat);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'format') out[key] = withoutFormat(value);
  }
  return out;
}

/**
 * JSON Schema (draft 2020-12) of one table's rows, from its zod row schema:
 * every column required (present on every row), non-key columns nullable, no
 * other property allowed.
 *
 * Only keywords of the 2020-12 vocabularies are used, so that any validator
 * accepts the file as it is (ajv's strict mode rejects unknown keywords such as an
 * `x-` extension unless the caller registers them). The primary key and the schema
 * version are therefore subschemas under `$defs`, which validators ignore until
 * referenced and which still validate something real:
 * - `$defs.primary_key`: an object holding the key columns; its `required` lists
 *   them in key order (what a loader merges on; a tombstone's key validates).
 * - `$defs.schema_version`: `const` of the version each manifest entry of this
 *   table's files carries in `schema_version`.
 */
export function tableJsonSchema(table: TableName, privacy: PrivacyPolicy = NO_PRIVACY): Record<string, unknown> {
  const { $schema, ...body } = withoutFormat(z.toJSONSchema(ROW_SCHEMAS[table], { target: 'draft-2020-12' })) as Record<
    string,
    unknown
  >;
  const keys = [...TABLE_SPECS[table].primaryKey];
  const properties = withPrivacy(table, body.properties as Record<string, unknown>, privacy.summary[table]);
  return {
    $schema,
    $id: `urn:helpdesk-sync:table:${table}`,
    title: table,
    description: TABLE_SPECS[table].description,
    ...body,
    properties,
    $defs: {
      primary_key: {
        description: `The primary key of ${table}, in order: merge on these columns.`,
        type: 'object',
        required: keys,
        properties: Object.fromEntries(keys.map((k) => [k, { $ref: `#/properties/${k}` }])),
      },
      schema_version: {
        description: `Version of this table's file contract; manifest entries of its files carry it as schema_version.`,
        const: privacy.schemaVersions[table],
      },
    },
  };
}

const HEX_DIGEST = '^[0-9a-f]{64}$';
const HASHED = 'HMAC-SHA-256 of the value, as 64 hex digits, keyed by HELPDESK_HASH_KEY (privacy policy: hash)';
const DROPPED = 'always null (privacy policy: drop)';

/**
 * The properties under a privacy policy: a hashed column is a 64-hex-digit digest
 * (each element of a string array), a dropped column (or `_extra`) is always null.
 */
function withPrivacy(
  table: TableName,
  properties: Record<string, unknown>,
  actions: Record<string, 'hash' | 'drop'> | undefined,
): Record<string, unknown> {
  if (actions === undefined) return properties;
  const out: Record<string, unknown> = { ...properties };
  for (const [column, action] of Object.entries(actions)) {
    const isArray = TABLE_SPECS[table].columns.find((c) => c.name === column)?.kind === 'string_array';
    if (action === 'drop') out[column] = { type: 'null', description: DROPPED };
    else if (isArray) {
      const items = { type: 'string', pattern: HEX_DIGEST };
      out[column] = { anyOf: [{ type: 'array', items }, { type: 'null' }], description: HASHED };
    } else out[column] = { type: ['string', 'null'], pattern: HEX_DIGEST, description: HASHED };
  }
  return out;
}

/** The primary key columns a table's JSON Schema declares (`$defs.primary_key.required`). */
export function primaryKeyOf(schema: Record<string, unknown>): string[] {
  const defs = schema.$defs as { primary_key?: { required?: string[] } } | undefined;
  return [...(defs?.primary_key?.required ?? [])];
}

/** The exact text of schemas/<table>.json. */
export function renderJsonSchemaFile(table: TableName): string {
  return `${JSON.stringify(tableJsonSchema(table), null, 2)}\n`;
}
