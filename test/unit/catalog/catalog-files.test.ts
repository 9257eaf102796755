import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../../src/catalog/catalog.js';

const STREAMS = join(import.meta.dirname, '..', '..', '..', 'src', 'catalog', 'streams');

/**
 * docs/architecture.md, "add a stream": one file in src/catalog/streams/ and its line in
 * src/catalog/catalog.ts. A declaration left out of the list is read by nothing (no config
 * name, no table, no check): this names the file.
 */
describe('src/catalog/streams/', () => {
  it('every declaration in it is in the catalog list (src/catalog/catalog.ts)', async () => {
    const files = readdirSync(STREAMS).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    const listed = new Set<unknown>(CATALOG);
    const missing: string[] = [];
    for (const file of files) {
      const module = (await import(pathToFileURL(join(STREAMS, file)).href)) as Record<string, unknown>;
      const declared = Object.entries(module).filter(([, value]) => isDeclaration(value));
      expect(declared.length, `src/catalog/streams/${file} declares no stream`).toBeGreaterThan(0);
      for (const [name, value] of declared)
        if (!listed.has(value)) missing.push(`src/catalog/streams/${file}: ${name}`);
    }
    expect(missing, 'declared in src/catalog/streams/ but not listed in CATALOG (src/catalog/catalog.ts)').toEqual([]);
  });
});

function isDeclaration(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'name' in value && 'read' in value && 'tables' in value;
}
