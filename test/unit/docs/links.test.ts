import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, DOC_FILES, ROOT, relativeLinks, slug } from './doc-files.js';

/** What a link points to, or why it points nowhere. */
function brokenLink(from: string, link: string): string | undefined {
  const [target = '', anchor] = link.split('#');
  const path = target === '' ? from : resolve(dirname(from), target);
  if (!existsSync(path)) return `${link} (no file ${relative(ROOT, path)})`;
  if (anchor && statSync(path).isFile() && path.endsWith('.md') && !anchorsOf(path).has(anchor))
    return `${link} (no heading #${anchor} in ${relative(ROOT, path)})`;
  return undefined;
}

/** Source, test, script and deployment files that may name a page of docs/ in a comment. */
function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : codeFiles(path);
    return /\.(ts|mts|mjs|sh|ya?ml|json)$/.test(entry.name) ? [path] : [];
  });
}

describe('GitHub heading anchors', () => {
  it.each([
    ['Rate limits, retries and timeouts', 'rate-limits-retries-and-timeouts'],
    ['Integers beyond 2^53', 'integers-beyond-253'],
    ['`helpdesk-sync load`: DuckDB and PostgreSQL', 'helpdesk-sync-load-duckdb-and-postgresql'],
    ["A new user's first sync", 'a-new-users-first-sync'],
    [
      'Metadata columns (every row, after the table’s own columns)',
      'metadata-columns-every-row-after-the-tables-own-columns',
    ],
    ['snake_case and kebab-case', 'snake_case-and-kebab-case'],
    ['See [the sandbox](sandbox.md)', 'see-the-sandbox'],
  ])('%s → #%s', (heading, anchor) => {
    expect(slug(heading)).toBe(anchor);
  });
});

describe('links', () => {
  it.each(DOC_FILES)('%s: every relative link points to a file, and its anchor to a heading there', (file) => {
    const from = join(ROOT, file);
    const broken = relativeLinks(from)
      .map((link) => brokenLink(from, link))
      .filter((b) => b !== undefined);
    expect(broken).toEqual([]);
  });

  it('every docs/<page>.md (and #anchor) a source, test, script or deployment file names exists', () => {
    const broken: string[] = [];
    for (const dir of ['src', 'test', 'scripts', 'deploy', 'config']) {
      for (const file of codeFiles(join(ROOT, dir))) {
        // A path in quotes is a test's data (a changed file a workflow test names), not a reference.
        for (const m of readFileSync(file, 'utf8').matchAll(/(?<!['"])\bdocs\/([a-z0-9-]+\.md)(#[a-z0-9_-]+)?/g)) {
          const problem = brokenLink(join(ROOT, 'docs', 'index'), `${m[1]}${m[2] ?? ''}`);
          if (problem) broken.push(`${relative(ROOT, file)}: docs/${problem}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("README answers in one hop: the daemon in a container, each table's columns, adding a stream", () => {
    const readme = relativeLinks(join(ROOT, 'README.md'));
    expect(readme).toContain('docs/containers.md#run-it');
    expect(readme).toContain('docs/output.md#tables');
    expect(readme).toContain('docs/architecture.md#add-a-stream');
  });
});
