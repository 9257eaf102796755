import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG, STREAM_NAMES } from '../../../src/catalog/catalog.js';
import { streamScopes } from '../../../src/streams/scopes.js';

/*
 * The pages that list streams are held to the stream declarations
 * (src/catalog/streams/): a new stream fails here until its lines are in the docs,
 * and the failure names the line to write.
 */
const docs = join(import.meta.dirname, '..', '..', '..', 'docs');
const streamsPage = readFileSync(join(docs, 'streams.md'), 'utf8');
const configurationPage = readFileSync(join(docs, 'configuration.md'), 'utf8');

describe('the docs that list streams', () => {
  it.each(CATALOG.map((d) => [d.name, d] as const))(
    'docs/streams.md has the declared row of %s in its stream table',
    (_, definition) => {
      const tables = definition.tables.map((t) => t.name);
      const named =
        tables.length === 1 && tables[0] === definition.name ? '' : ` (${tables.map((t) => `\`${t}\``).join(', ')})`;
      const row = `| \`${definition.name}\`${named} | ${definition.docs.readFrom} | ${definition.docs.incremental} |`;
      expect(streamsPage).toContain(row);
    },
  );

  it('docs/streams.md names every scope the streams keep', () => {
    const section = streamsPage.slice(streamsPage.indexOf('## State kept by the streams'));
    for (const name of STREAM_NAMES) {
      const { scopes, prefixes } = streamScopes(name);
      for (const scope of [...scopes, ...prefixes]) expect(section, scope).toContain(`\`${scope}`);
    }
  });

  it('docs/configuration.md lists every stream name, in order, under `streams`', () => {
    expect(configurationPage).toContain(`| \`streams\` | all | subset of \`${STREAM_NAMES.join(', ')}\` |`);
  });
});
