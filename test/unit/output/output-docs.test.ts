import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dedupQuery } from '../../../src/output/merge-sql.js';
import { TABLE_SPECS } from '../../../src/output/rows/table-specs.js';
import { TABLE_NAMES } from '../../../src/output/tables.js';

const doc = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'output.md'), 'utf8');
const SHORT: Record<string, string> = {
  string: '',
  int: 'int',
  number: 'number',
  bool: 'bool',
  timestamp: 'ts',
  date: 'date',
  string_array: 'string[]',
  array: 'json[]',
  object: 'object',
  json: 'json',
};

describe('the output contract in docs/output.md', () => {
  it.each(TABLE_NAMES)('lists the columns of %s exactly as the row schema has them', (table) => {
    const spec = TABLE_SPECS[table];
    const columns = spec.columns.map((c) => {
      const bold = spec.primaryKey.includes(c.name) ? '**' : '';
      return `${bold}${c.name}${bold}${SHORT[c.kind] ? ` (${SHORT[c.kind]})` : ''}`;
    });
    expect(doc).toContain(`| \`${table}\` | ${spec.primaryKey.join(', ')} | ${columns.join(', ')} |`);
  });

  it.each(['duckdb', 'bigquery', 'snowflake', 'postgres'] as const)(
    'shows the %s dedup query the code generates',
    (d) => {
      expect(doc).toContain(dedupQuery(d, 'conversations'));
    },
  );
});
