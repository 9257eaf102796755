import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { primaryKeyOf, renderJsonSchemaFile, tableJsonSchema } from '../../../src/output/json-schema.js';
import { SCHEMA_VERSIONS } from '../../../src/output/rows/schema-version.js';
import { TABLE_SPECS } from '../../../src/output/rows/table-specs.js';
import { TABLE_NAMES, TABLES } from '../../../src/output/tables.js';

const dir = join(import.meta.dirname, '..', '..', '..', 'schemas');

describe('schemas/ (the warehouse contract)', () => {
  it('holds exactly one file per table', () => {
    expect(readdirSync(dir).sort()).toEqual(TABLE_NAMES.map((t) => `${t}.json`).sort());
  });

  it.each(TABLE_NAMES)('%s.json is what `npm run schemas:generate` writes (not stale)', (table) => {
    expect(readFileSync(join(dir, `${table}.json`), 'utf8')).toBe(renderJsonSchemaFile(table));
  });

  it.each(TABLE_NAMES)('%s: draft 2020-12, primary key and version under $defs, every column required', (table) => {
    const schema = tableJsonSchema(table) as {
      $schema: string;
      $defs: { schema_version: { const: string } };
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { type?: unknown; anyOf?: unknown[] }>;
    };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    // Loaders merge on it: the account first, so the accounts of a config share the tables.
    expect(primaryKeyOf(schema)).toEqual(['_account', ...TABLES[table]]);
    expect(schema.$defs.schema_version.const).toBe(SCHEMA_VERSIONS[table]);
    expect(schema.additionalProperties).toBe(false);
    const columns = TABLE_SPECS[table].columns.map((c) => c.name);
    expect(schema.required).toEqual([...columns, '_synced_at', '_run_id', '_deleted', '_extra', '_account']);
    for (const key of ['_account', ...TABLES[table]])
      expect(JSON.stringify(schema.properties[key])).not.toContain('null');
    const other = columns.find((c) => !(TABLES[table] as readonly string[]).includes(c))!;
    expect(JSON.stringify(schema.properties[other])).toContain('"null"');
  });

  it('every file compiles in a default ajv (strict mode, no added keywords or formats), without warnings', () => {
    const warnings: unknown[] = [];
    const logger = {
      log: () => undefined,
      warn: (...a: unknown[]) => warnings.push(a),
      error: (...a: unknown[]) => warnings.push(a),
    };
    const ajv = new Ajv2020({ logger });
    for (const table of TABLE_NAMES) {
      const schema = JSON.parse(readFileSync(join(dir, `${table}.json`), 'utf8')) as { $id: string };
      expect(() => ajv.compile(schema), table).not.toThrow();
      // The key subschema validates a row's key part, e.g. a tombstone's.
      const key = ajv.getSchema(`${schema.$id}#/$defs/primary_key`)!;
      const sample = Object.fromEntries(TABLES[table].map((c) => [c, c === 'date' ? '2026-01-02' : 'k1']));
      expect(key({ ...sample, _account: 'acme' }), table).toBe(true);
      expect(key(sample), `${table} without its account`).toBe(false);
      expect(key({}), table).toBe(false);
    }
    expect(new Ajv2020().compile(tableJsonSchema('messages'))({})).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('gives every table its own schema version, stable for the same columns', () => {
    expect(new Set(Object.values(SCHEMA_VERSIONS)).size).toBe(TABLE_NAMES.length);
    for (const v of Object.values(SCHEMA_VERSIONS)) expect(v).toMatch(/^[0-9a-f]{12}$/);
  });

  it('bounds an int column by the signed 64-bit range, in exact digits, so a ticket number past 2^53 is valid', () => {
    const text = readFileSync(join(dir, 'conversations.json'), 'utf8');
    expect(text).toContain('"minimum": -9223372036854775808');
    expect(text).toContain('"maximum": 9223372036854775807');
    const validate = new Ajv2020().compile(JSON.parse(text));
    const row = (ticket: string) =>
      JSON.parse(
        `{"id":"c1","ticket_id":${ticket},${TABLE_SPECS.conversations.columns
          .filter((c) => c.name !== 'id' && c.name !== 'ticket_id')
          .map((c) => `"${c.name}":null`)
          .join(
            ',',
          )},"_synced_at":"2026-01-01T00:00:00.000Z","_run_id":"r","_deleted":false,"_extra":null,"_account":"acme"}`,
      );
    // Read by JSON.parse, as a validator reads a line: 2^53 + 1 is its nearest double, above the old bound.
    expect(validate(row('9007199254740993')), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(row('18446744073709551621'))).toBe(false);
  });
});
