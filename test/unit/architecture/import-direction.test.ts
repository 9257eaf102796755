import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_NAMES } from '../../../src/warehouse/engines.js';
import { SRC, sourceFiles } from './source-files.js';

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
  'exact-json',
  'backoff',
  'clock',
  'kv-state',
  'packed-strings',
  'packed-hash-maps',
  'scratch-space',
  'version',
  'path-problem',
  'duckdb-api',
  'format-duration',
  'live-progress',
  'terminal',
  'config',
  'catalog',
];
/**
 * Where a command's run is put together: only these see the whole config, and hand each layer
 * its slice (stateSettingsOf, streamSettingsOf, config.source, config.push…). A folder ends in /.
 */
const COMPOSITION_ROOTS = [
  'cli/',
  'config/',
  'daemon/',
  'demo/',
  'sync/sync-job.ts',
  'sync/check-job.ts',
  'sync/stream-settings-of.ts',
  'push/push-job.ts',
  'verify/verify-job.ts',
  'load/load-job.ts',
  'load/recorded-load.ts',
  'report/status-from-config.ts',
];

const ALLOWED: Record<string, readonly string[]> = {
  errors: [],
  log: ['errors', 'redact', 'terminal'],
  redact: [],
  'plain-object': [],
  'kv-state': [],
  'packed-strings': [],
  'packed-hash-maps': ['packed-strings'],
  'scratch-space': [],
  'canonical-json': ['exact-json'],
  'exact-json': [],
  backoff: [],
  clock: [],
  version: [],
  'path-problem': [],
  'duckdb-api': [],
  'format-duration': [],
  'live-progress': ['clock', 'log', 'terminal'],
  terminal: ['format-duration'],
  // And the registry of warehouse engines, nothing else of the warehouse (WAREHOUSE_FOR_CONFIG below).
  config: ['errors', 'catalog', 'warehouse'],
  // The stream catalog is pure data (names, tables, columns, keys, scopes): it imports nothing.
  catalog: [],
  api: SHARED,
  output: SHARED,
  state: [...SHARED, 'output'],
  lock: [...SHARED, 'state'],
  commit: [...SHARED, 'output', 'state'],
  streams: [...SHARED, 'api', 'output'],
  push: [...SHARED, 'api', 'state', 'lock'],
  sync: [...SHARED, 'api', 'output', 'state', 'streams', 'lock', 'commit'],
  warehouse: [...SHARED, 'output'],
  load: [...SHARED, 'output', 'warehouse'],
  daemon: [
    ...SHARED,
    'api',
    'output',
    'state',
    'streams',
    'lock',
    'commit',
    'sync',
    'load',
    'warehouse',
    'push',
    'report',
  ],
  verify: [...SHARED, 'api', 'output', 'state', 'streams'],
  report: [...SHARED, 'state', 'streams', 'sync'],
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
    'warehouse',
    'push',
    'daemon',
    'verify',
    'report',
    'sandbox',
  ],
  demo: [...SHARED, 'api', 'output', 'state', 'streams', 'commit', 'sync', 'load', 'warehouse', 'sandbox'],
  sandbox: [],
};

const src = SRC;

/**
 * Layers split into rooms behind one front module: another layer imports the
 * front, never a room inside, so the rooms can move without their callers knowing.
 */
const FRONTS: Record<string, readonly string[]> = {
  api: ['api/index.ts'],
  // choices.ts: the names the command line offers (plan formats, state kinds) without loading the layer.
  push: ['push/index.ts', 'push/choices.ts'],
  sandbox: ['sandbox/start.ts'],
};

/**
 * Inside those layers the rooms (sub-folders) import only downward too: each
 * may import the rooms listed for it. The layer's loose files (its front and
 * what composes the rooms) stand above every room, except the few listed in
 * SHARED_LOOSE that every room may use. A room missing here fails the test.
 */
const ROOMS: Record<string, Record<string, readonly string[]>> = {
  api: {
    errors: [],
    transport: ['errors'],
    endpoints: ['errors', 'transport'],
    queue: ['errors', 'transport', 'endpoints'],
  },
  push: {
    files: [],
    mappings: [],
    plan: ['files', 'mappings'],
    apply: ['files', 'mappings', 'plan'],
    report: ['files', 'mappings', 'plan', 'apply'],
  },
  // One room per kind of read; none knows another. The registry and the probe (loose) compose them.
  streams: {
    'full-refresh': [],
    reports: [],
    conversations: [],
  },
  sandbox: {
    model: [],
    protocol: [],
    deployment: ['model'],
    seed: ['model'],
    store: ['model', 'protocol', 'deployment', 'seed'],
    requests: ['model', 'protocol', 'deployment', 'store'],
    hours: ['model', 'protocol'],
    routes: ['model', 'protocol', 'deployment', 'seed', 'store', 'requests'],
  },
};
const SHARED_LOOSE: Record<string, readonly string[]> = {
  push: ['errors.ts'],
  // The streams' contract and helpers, used by every kind of read.
  streams: [
    'types.ts',
    'stream-settings.ts',
    'scopes.ts',
    'committed.ts',
    'completeness.ts',
    'fingerprint.ts',
    'id-of.ts',
    'inbox-ids.ts',
    'map-in-order.ts',
    'api-error-status.ts',
    'skip-when-forbidden.ts',
    'unreadable-list.ts',
  ],
};

/**
 * The one module of the warehouse the config reads (to check `load.into`): the
 * registry of engines, and what it imports when loaded: the engines' targets,
 * their contract and shared helpers, never an engine's SQL, connection or driver.
 */
const WAREHOUSE_FOR_CONFIG = 'warehouse/engines.ts';
// An engine's target, and the words of its connection string the target shares with its connection (`<engine>-url.ts`).
const LIGHT_WAREHOUSE = [
  /^warehouse\/engines\.ts$/,
  /^warehouse\/target\.ts$/,
  /^warehouse\/([^/]+)\/\1-target\.ts$/,
  /^warehouse\/([^/]+)\/\1-url\.ts$/,
];

/** The warehouse's sub-folders that are not an engine's. */
const WAREHOUSE_ROOMS = ['history', 'merge', 'evolution'];

/** `api` for src/api/…, `log` for src/log.ts. */
function layerOf(path: string): string {
  const first = relative(src, path).split(sep)[0] ?? '';
  return first.replace(/\.(ts|js)$/, '');
}

/** `queue` for src/api/queue/…; '' for a file directly in the layer's folder (src/api/index.ts). */
function roomOf(path: string): string {
  const parts = relative(src, path).split(sep);
  return parts.length > 2 ? (parts[1] ?? '') : '';
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

/** Relative specifiers of the imports that load a module with this one: static, not type-only. */
function loadedWith(text: string): string[] {
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)(?!\s+type\b)\b[^'"]*?from\s*['"](\.[^'"]+)['"]/gms),
    ...text.matchAll(/^\s*import\s*['"](\.[^'"]+)['"]/gm),
  ];
  return specifiers.map((m) => m[1] ?? '');
}

/** src/-relative path with / separators. */
function srcPath(path: string): string {
  return relative(src, path).split(sep).join('/');
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

  it('every room of a layer split into rooms has a rule', () => {
    const unknown = files
      .filter((file) => ROOMS[layerOf(file)] !== undefined && roomOf(file) !== '')
      .map((file) => `${layerOf(file)}/${roomOf(file)}`)
      .filter((room, i, all) => all.indexOf(room) === i)
      .filter((room) => {
        const [layer = '', name = ''] = room.split('/');
        return !(name in (ROOMS[layer] ?? {}));
      });
    expect(unknown).toEqual([]);
  });

  it('the rooms of a layer import only downward', () => {
    const violations: string[] = [];
    for (const file of files) {
      const layer = layerOf(file);
      const from = roomOf(file);
      const rules = ROOMS[layer];
      if (rules === undefined || from === '') continue;
      for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
        const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
        if (layerOf(target) !== layer) continue;
        const to = roomOf(target);
        const allowed =
          to === from ||
          (to === '' ? (SHARED_LOOSE[layer] ?? []).includes(basename(target)) : (rules[from] ?? []).includes(to));
        if (!allowed) violations.push(`${relative(src, file)} imports ${specifier} (${from} → ${to || 'the top'})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('the whole Config goes only to the composition roots; every other module gets its slice', () => {
    const whole = files
      .filter((file) => {
        const text = readFileSync(file, 'utf8');
        if (!/import[^;]*\bConfig\b[^;]*from '[^']*config\/schema\.js'/.test(text)) return false;
        // Naming a part of it (`Config['push']`) is a slice; a value of the whole is not.
        const body = text.replace(/import[^;]*;/g, '');
        return /\bConfig\b(?!\s*\[)/.test(body);
      })
      .map((file) => relative(src, file).split(sep).join('/'))
      .filter((file) => !COMPOSITION_ROOTS.some((root) => (root.endsWith('/') ? file.startsWith(root) : file === root)))
      .sort();
    expect(whole).toEqual([]);
  });

  it('other layers enter a layer with a front module only through it', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
        const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
        const to = layerOf(target);
        const front = FRONTS[to];
        if (to !== from && front !== undefined && !front.includes(relative(src, target))) {
          violations.push(
            `${relative(src, file)} imports ${specifier} (the front of ${to} is src/${front.join(', src/')})`,
          );
        }
      }
    }
    expect(violations).toEqual([]);
  });
  it('the config enters the warehouse only at the registry of engines, which loads no SQL, connection or driver', () => {
    const entries = files
      .filter((file) => layerOf(file) === 'config')
      .flatMap((file) => importsOf(readFileSync(file, 'utf8')).map((s) => [file, resolve(dirname(file), s)] as const))
      .filter(([, target]) => layerOf(target) === 'warehouse')
      .map(([file, target]) => `${srcPath(file)} → ${srcPath(target.replace(/\.js$/, '.ts'))}`);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter((entry) => !entry.endsWith(` → ${WAREHOUSE_FOR_CONFIG}`))).toEqual([]);

    const loaded = new Set<string>();
    const visit = (path: string): void => {
      if (loaded.has(path)) return;
      loaded.add(path);
      for (const s of loadedWith(readFileSync(join(src, path), 'utf8'))) {
        visit(srcPath(resolve(dirname(join(src, path)), s).replace(/\.js$/, '.ts')));
      }
    };
    visit(WAREHOUSE_FOR_CONFIG);
    expect([...loaded].some((path) => /-target\.ts$/.test(path))).toBe(true);
    const heavy = [...loaded].filter((path) =>
      layerOf(join(src, path)) === 'warehouse'
        ? !LIGHT_WAREHOUSE.some((light) => light.test(path))
        : !SHARED.includes(layerOf(join(src, path))),
    );
    expect(heavy).toEqual([]);
  });

  it('each engine has a folder of the warehouse, and no engine imports another', () => {
    const folders = readdirSync(join(src, 'warehouse'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((f) => !WAREHOUSE_ROOMS.includes(f)).sort()).toEqual([...ENGINE_NAMES].sort());
    const engineOf = (path: string) => {
      const [layer, folder] = srcPath(path).split('/');
      return layer === 'warehouse' && (ENGINE_NAMES as readonly string[]).includes(folder ?? '') ? folder : undefined;
    };
    const violations: string[] = [];
    for (const file of files) {
      const from = engineOf(file);
      if (from === undefined) continue;
      for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
        const to = engineOf(resolve(dirname(file), specifier));
        if (to !== undefined && to !== from) violations.push(`${srcPath(file)} imports ${specifier} (${from} → ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });
});
