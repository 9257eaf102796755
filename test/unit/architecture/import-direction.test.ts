import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/ and what each may import (docs/architecture.md). Imports
 * only point down: a lower layer never learns of the one above it, and the
 * sandbox, being the other party, imports nothing from the connector. A folder
 * or top-level file missing here fails the test: give it a rule.
 */
const SHARED = [
  'errors',
  'log',
  'redact',
  'plain-object',
  'canonical-json',
  'backoff',
  'clock',
  'kv-state',
  'packed-strings',
  'packed-hash-maps',
  'scratch-space',
  'version',
  'path-problem',
  'format-duration',
  'live-progress',
  'config',
];
const ALLOWED: Record<string, readonly string[]> = {
  errors: [],
  log: ['errors', 'redact'],
  redact: [],
  'plain-object': [],
  'kv-state': [],
  'packed-strings': [],
  'packed-hash-maps': ['packed-strings'],
  'scratch-space': [],
  'canonical-json': [],
  backoff: [],
  clock: [],
  version: [],
  'path-problem': [],
  'format-duration': [],
  'live-progress': ['clock', 'log'],
  config: ['errors'],
  api: SHARED,
  output: SHARED,
  state: [...SHARED, 'output'],
  lock: [...SHARED, 'state'],
  commit: [...SHARED, 'output', 'state'],
  streams: [...SHARED, 'api', 'output'],
  push: [...SHARED, 'api', 'state', 'lock'],
  sync: [...SHARED, 'api', 'output', 'state', 'streams', 'lock', 'commit'],
  load: [...SHARED, 'output'],
  daemon: [...SHARED, 'api', 'output', 'state', 'streams', 'lock', 'commit', 'sync', 'load', 'push'],
  verify: [...SHARED, 'api', 'output', 'state', 'streams'],
  cli: [
    ...SHARED,
    'api',
    'output',
    'state',
    'streams',
    'lock',
    'commit',
    'sync',
    'load',
    'push',
    'daemon',
    'verify',
    'sandbox',
  ],
  demo: [...SHARED, 'api', 'output', 'state', 'streams', 'commit', 'sync', 'load', 'sandbox'],
  sandbox: [],
};

const src = resolve(import.meta.dirname, '..', '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `api` for src/api/…, `log` for src/log.ts. */
function layerOf(path: string): string {
  const first = relative(src, path).split(sep)[0] ?? '';
  return first.replace(/\.(ts|js)$/, '');
}

/** Relative specifiers of static imports, re-exports and dynamic imports, type-only ones included. */
function importsOf(text: string): string[] {
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*['"](\.[^'"]+)['"]/gms),
    ...text.matchAll(/^\s*import\s*['"](\.[^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ];
  return specifiers.map((m) => m[1] ?? '');
}

describe('import direction', () => {
  const files = sourceFiles(src);

  it('every folder and top-level file of src/ has a rule', () => {
    const unknown = [...new Set(files.map(layerOf))].filter((layer) => !(layer in ALLOWED));
    expect(unknown).toEqual([]);
  });

  it('finds the imports it checks (the scan itself works)', () => {
    const edges = files.flatMap((file) => importsOf(readFileSync(file, 'utf8')));
    expect(edges.length).toBeGreaterThan(files.length);
    expect(importsOf("import type { A } from '../x/a.js';\nexport { b } from './b.js';")).toEqual([
      '../x/a.js',
      './b.js',
    ]);
  });

  it('imports only point down the layers', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
        const to = layerOf(resolve(dirname(file), specifier));
        if (to !== from && !(ALLOWED[from] ?? []).includes(to)) {
          violations.push(`${relative(src, file)} imports ${specifier} (${from} → ${to})`);
        }
      }
    }
    expect(violations).toEqual([]);
  });
});
