import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderJsonSchemaFile, tableJsonSchema } from '../../../src/output/json-schema.js';
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

  it.each(TABLE_NAMES)('%s: draft 2020-12, x-primary-key, every column required, keys not nullable', (table) => {
    const schema = tableJsonSchema(table) as {
      $schema: string;
      'x-primary-key': string[];
      'x-schema-version': string;
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { type?: unknown; anyOf?: unknown[] }>;
    };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema['x-primary-key']).toEqual([...TABLES[table]]);
    expect(schema['x-schema-version']).toBe(SCHEMA_VERSIONS[table]);
    expect(schema.additionalProperties).toBe(false);
    const columns = TABLE_SPECS[table].columns.map((c) => c.name);
    expect(schema.required).toEqual([...columns, '_synced_at', '_run_id', '_deleted', '_extra']);
    for (const key of TABLES[table]) expect(JSON.stringify(schema.properties[key])).not.toContain('null');
    const other = columns.find((c) => !(TABLES[table] as readonly string[]).includes(c))!;
    expect(JSON.stringify(schema.properties[other])).toContain('"null"');
  });

  it('gives every table its own schema version, stable for the same columns', () => {
    expect(new Set(Object.values(SCHEMA_VERSIONS)).size).toBe(TABLE_NAMES.length);
    for (const v of Object.values(SCHEMA_VERSIONS)) expect(v).toMatch(/^[0-9a-f]{12}$/);
  });
});
