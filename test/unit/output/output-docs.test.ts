import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_SET_VERSION, SCHEMA_VERSIONS } from '../../../src/output/rows/schema-version.js';
import { TABLE_SPECS } from '../../../src/output/rows/table-specs.js';
import { TABLE_NAMES } from '../../../src/output/tables.js';
import { stagingSql } from '../../../src/warehouse/dbt-export.js';
import { DIALECT_NAMES, DIALECTS } from '../../../src/warehouse/dialects.js';
import { warehouseScript } from '../../../src/warehouse/warehouse-script.js';

const docs = join(import.meta.dirname, '..', '..', '..', 'docs');
const doc = readFileSync(join(docs, 'output.md'), 'utf8');
/** The dedup queries, the printed recipes and the dbt models: docs/loading.md. */
const loading = readFileSync(join(docs, 'loading.md'), 'utf8');
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

describe('the output contract in docs/output.md and docs/loading.md', () => {
  it.each(TABLE_NAMES)('lists the columns of %s exactly as the row schema has them', (table) => {
    const spec = TABLE_SPECS[table];
    const columns = spec.columns.map((c) => {
      const bold = spec.primaryKey.includes(c.name) ? '**' : '';
      return `${bold}${c.name}${bold}${SHORT[c.kind] ? ` (${SHORT[c.kind]})` : ''}`;
    });
    expect(doc).toContain(`| \`${table}\` | ${spec.primaryKey.join(', ')} | ${columns.join(', ')} |`);
  });

  it.each(DIALECT_NAMES)('shows the %s dedup query the code generates', (d) => {
    expect(loading).toContain(DIALECTS[d].dedupQuery('conversations', 'conversations_batch'));
  });

  it.each(DIALECT_NAMES)('shows the %s load-and-merge recipe the script prints (for tags)', (d) => {
    expect(loading).toContain(warehouseScript(DIALECTS[d], ['tags'])[1]!.sql);
  });

  it('describes the dbt staging model as generated (partition by key, latest first, tombstones dropped)', () => {
    expect(stagingSql('tags')).toContain(
      'row_number() over (partition by _account, id order by _synced_at desc, _run_id desc)',
    );
    expect(loading).toContain('stg_helpdesk__<table>');
  });

  it('the changelog of the output contract names the current schema set and every table version it changed', () => {
    const changelog = doc.slice(doc.indexOf('## Changelog of the output contract'));
    expect(changelog).toContain(`### Schema set \`${SCHEMA_SET_VERSION}\``);
    // The newest entry: from its heading to the next one (or the end of the page).
    const start = changelog.indexOf('### Schema set');
    const next = changelog.indexOf('\n### ', start + 1);
    const latest = changelog.slice(start, next === -1 ? undefined : next);
    for (const [table, version] of Object.entries(SCHEMA_VERSIONS)) {
      const row = latest.split('\n').find((line) => line.startsWith(`| \`${table}\` |`));
      if (row) expect(row, table).toContain(`→ \`${version}\``);
    }
  });
});
