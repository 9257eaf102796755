import { z } from 'zod';
import { stringifyJsonExact } from '../exact-json/stringify-json-exact.js';
import { INT64_MAX, INT64_MIN } from './normalize/integer-range.js';
import { NO_PRIVACY, type PrivacyPolicy } from './privacy/privacy-policy.js';
import { INT_COLUMN, ROW_SCHEMAS } from './rows/row-schemas.js';
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
 * An `int` column is a BIGINT: an integer within the signed 64-bit bounds. zod
 * cannot write the column (a number or a bigint), so it is written as an
 * `integer` bounded by the doubles nearest the bounds (what a validator
 * compares in memory: -2^63 exactly, and 2^63 for 2^63 − 1). The files state the
 * bounds exactly (jsonSchemaText).
 */
function intColumn(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  if (ctx.zodSchema !== INT_COLUMN) return;
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, { type: 'integer', minimum: Number(INT64_MIN), maximum: Number(INT64_MAX) });
}

/** A schema with every `integer`'s bounds as the exact bigints, for writing them as their digits. */
function withInt64Bounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withInt64Bounds);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = withInt64Bounds(value);
  if (out.type === 'integer') Object.assign(out, { minimum: INT64_MIN, maximum: INT64_MAX });
  return out;
}

/**
 * The text of one JSON Schema, or of an object of them (`schemas --format
 * jsonschema`): indented by two, the int columns' bounds as their exact digits
 * (-9223372036854775808, 9223372036854775807), which no double spells.
 */
export function jsonSchemaText(schema: unknown): string {
  return `${stringifyJsonExact(withInt64Bounds(schema), 2)}\n`;
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
 *   them in key order, `_account` first (what a loader merges on, so the accounts
 *   of a config share its tables; a tombstone's key validates).
 * - `$defs.schema_version`: `const` of the version each manifest entry of this
 *   table's files carries in `schema_version`.
 */
export function tableJsonSchema(table: TableName, privacy: PrivacyPolicy = NO_PRIVACY): Record<string, unknown> {
  const generated = z.toJSONSchema(ROW_SCHEMAS[table], {
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: intColumn,
  });
  const { $schema, ...body } = withoutFormat(generated) as Record<string, unknown>;
  const keys = [...TABLE_SPECS[table].rowKey];
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
        description: `The primary key of ${table}, in order (the account, then the key within it): merge on these columns.`,
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
  return jsonSchemaText(tableJsonSchema(table));
}
