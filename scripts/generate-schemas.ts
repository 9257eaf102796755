/**
 * Writes schemas/<table>.json from the zod row schemas (npm run schemas:generate).
 * A unit test regenerates them in memory and fails when the files are stale.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderJsonSchemaFile } from '../src/output/json-schema.js';
import { TABLE_NAMES } from '../src/output/tables.js';

const dir = join(import.meta.dirname, '..', 'schemas');
const expected = new Set(TABLE_NAMES.map((t) => `${t}.json`));
for (const name of readdirSync(dir)) {
  if (name.endsWith('.json') && !expected.has(name)) rmSync(join(dir, name));
}
for (const table of TABLE_NAMES) writeFileSync(join(dir, `${table}.json`), renderJsonSchemaFile(table));
process.stdout.write(`wrote ${TABLE_NAMES.length} schemas to ${dir}\n`);
