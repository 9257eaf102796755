import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFileSchema } from '../../../src/config/schema.js';
import { QUIRK_NAMES } from '../../../src/sandbox/deployment/quirks.js';
import { DOC_FILES, ROOT } from './doc-files.js';

const root = ROOT;
const docFiles = DOC_FILES;

/** Every leaf key the config schema accepts, as dotted paths (union members merged). */
function schemaKeys(schema: unknown, path = '', out = new Set<string>()): Set<string> {
  const def = (schema as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
  switch (def.type) {
    case 'object':
      for (const [key, child] of Object.entries(def.shape as Record<string, unknown>)) {
        schemaKeys(child, path ? `${path}.${key}` : key, out);
      }
      break;
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nullable':
    case 'readonly':
      schemaKeys(def.innerType, path, out);
      break;
    case 'pipe':
      schemaKeys(def.in, path, out);
      break;
    // A list's items under the list's own key: `streams`, `accounts.name`.
    case 'array':
      schemaKeys(def.element, path, out);
      break;
    case 'union':
      for (const option of def.options as unknown[]) schemaKeys(option, path, out);
      break;
    default:
      out.add(path);
  }
  return out;
}

describe('docs', () => {
  it('exist for every topic README points to, and README links every page', () => {
    expect(docFiles.length).toBeGreaterThanOrEqual(8);
    // Every page is reachable from README's table of pages by task.
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const unlinked = docFiles.filter((f) => f !== 'README.md' && !readme.includes(`](${f}`));
    expect(unlinked).toEqual([]);
  });

  it('the configuration reference lists exactly the keys the config schema accepts', () => {
    const documented = new Set<string>();
    for (const line of readFileSync(join(root, 'docs/configuration.md'), 'utf8').split('\n')) {
      const firstCell = /^\| ([^|]+) \|/.exec(line)?.[1] ?? '';
      for (const m of firstCell.matchAll(/`([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)`/g))
        if (m[1]) documented.add(m[1]);
    }
    const accepted = schemaKeys(configFileSchema);
    expect([...documented].filter((k) => !accepted.has(k)).sort()).toEqual([]);
    expect([...accepted].filter((k) => !documented.has(k)).sort()).toEqual([]);
  });

  it("the sandbox's Quirks table lists exactly the quirks it takes", () => {
    const text = readFileSync(join(root, 'docs/sandbox.md'), 'utf8');
    const section = text.slice(text.indexOf('\n## Quirks'), text.indexOf('\n## ', text.indexOf('\n## Quirks') + 1));
    const documented = [...section.matchAll(/^\| `([a-z0-9-]+)(?:\[:N\])?` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual([...QUIRK_NAMES].sort());
  });

  it('every `npm run` a doc gives names a script of package.json', () => {
    const scripts = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts);
    const named = new Set<string>();
    for (const file of docFiles)
      for (const m of readFileSync(join(root, file), 'utf8').matchAll(/npm run ([a-z][a-z0-9:-]*)/g))
        if (m[1]) named.add(m[1]);
    expect(named.size).toBeGreaterThan(0);
    expect([...named].filter((name) => !scripts.includes(name)).sort()).toEqual([]);
  });

  it('no source file or doc cites a guide that is not in the repository', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.(ts|md|ya?ml)$/.test(entry.name) && /\b(design|style)\.md\b/.test(readFileSync(path, 'utf8'))) {
          offenders.push(relative(root, path));
        }
      }
    };
    for (const dir of ['src', 'docs', 'test', 'scripts', 'deploy']) walk(join(root, dir));
    for (const file of ['README.md', 'Dockerfile', '.ci/run']) {
      if (/\b(design|style)\.md\b/.test(readFileSync(join(root, file), 'utf8'))) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });
});
