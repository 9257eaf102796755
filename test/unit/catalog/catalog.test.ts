import { describe, expect, it } from 'vitest';
import { CATALOG, CATALOG_TABLES, STREAM_NAMES, streamOfTable } from '../../../src/catalog/catalog.js';
import { defineStream, type StreamDefinition } from '../../../src/catalog/stream-definition.js';
import { TABLE_SPECS } from '../../../src/output/rows/table-specs.js';
import { TABLE_NAMES, TABLES } from '../../../src/output/tables.js';

const PARTS: readonly (keyof StreamDefinition)[] = [
  'name',
  'read',
  'tables',
  'state',
  'check',
  'forbidden',
  'verify',
  'docs',
];

describe('the stream catalog', () => {
  it('declares every part of every stream', () => {
    for (const definition of CATALOG)
      expect(Object.keys(definition).sort(), definition.name).toEqual([...PARTS].sort());
  });

  it('does not compile a declaration that forgets a part', () => {
    const forgetful = {
      name: 'forgetful',
      read: { kind: 'list', endpoint: { method: 'GET', path: '/forgetful', paginator: 'pages' } },
      tables: [],
      state: { scope: 'fp:forgetful', unit: 'things' },
      check: { probe: 'read' },
      forbidden: { effect: 'fail' },
      verify: 'listing',
    } as const;
    // `docs` is missing: `npm run lint` (tsc) fails if this line compiles.
    // @ts-expect-error
    expect(defineStream(forgetful).name).toBe('forgetful');
  });

  it('names every stream and table once', () => {
    expect(new Set(STREAM_NAMES).size).toBe(CATALOG.length);
    expect(new Set(TABLE_NAMES).size).toBe(CATALOG_TABLES.length);
  });

  it('is where the output tables, their keys and columns come from, in catalog order', () => {
    expect(TABLE_NAMES).toEqual(CATALOG.flatMap((d) => d.tables.map((t) => t.name)));
    for (const table of CATALOG_TABLES) {
      expect(TABLES[table.name]).toEqual(table.primaryKey);
      expect(TABLE_SPECS[table.name].columns).toEqual(table.columns);
      expect(streamOfTable(table.name).tables).toContain(table);
    }
  });

  it('keys every table by columns it has', () => {
    for (const table of CATALOG_TABLES) {
      const columns = table.columns.map((c) => c.name);
      for (const key of table.primaryKey) expect(columns, `${table.name}.${key}`).toContain(key);
    }
  });

  it('reads the listing again in verify only for the lists read whole or per inbox', () => {
    for (const definition of CATALOG) {
      const listed = definition.read.kind === 'list' || definition.read.kind === 'per-inbox';
      expect(definition.verify === 'listing', definition.name).toBe(listed);
    }
  });
});
