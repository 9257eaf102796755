import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_NAMES } from '../../../src/warehouse/engines.js';
import { SRC, sourceFiles } from './source-files.js';

/**
 * One folder per warehouse engine, one registry (docs/architecture.md, "add a
 * warehouse"): outside `src/warehouse/<engine>/` only the registry names an
 * engine in code, so the code above asks an engine what it can do (a dialect's
 * `contentHash`, a target's `parse`), never which one it is. Comments may name
 * them: they explain; they do not choose.
 */
const REGISTRY = ['warehouse/engines.ts', 'warehouse/dialects.ts'];

/** Files that name DuckDB the library, not the warehouse, or show it by name. */
const NOT_THE_WAREHOUSE: Record<string, string> = {
  'duckdb-api.ts': 'loads the @duckdb/node-api package',
  'output/parquet/': 'DuckDB writes the Parquet files',
  'demo/': 'the demo loads into a DuckDB file and shows the duckdb shell line',
};

const src = SRC;

/** The code without its comments (a `://` in a string is not a comment). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

const NAMES = new RegExp(`\\b(${[...ENGINE_NAMES, 'postgresql', 'pg'].join('|')})\\b`, 'gi');

function namesIn(text: string): string[] {
  return [...code(text).matchAll(NAMES)].map((m) => m[1]!.toLowerCase());
}

describe('engine names', () => {
  it('are found where they are written in code, not in comments (the scan itself works)', () => {
    expect(
      namesIn("// DuckDB\n/* PostgreSQL */ const a = 'postgres://x'; if (d.name === 'duckdb') f(`Snowflake`);"),
    ).toEqual(['postgres', 'duckdb', 'snowflake']);
    expect(namesIn(readFileSync(join(src, 'warehouse', 'engines.ts'), 'utf8'))).toContain('postgres');
  });

  it('appear in code only in the engines’ folders and the registry', () => {
    const engineFolders = ENGINE_NAMES.map((name) => `warehouse/${name}/`);
    const allowed = [...REGISTRY, ...engineFolders, ...Object.keys(NOT_THE_WAREHOUSE)];
    const found = sourceFiles(src)
      .map((file) => relative(src, file).split(sep).join('/'))
      .filter((file) => !allowed.some((a) => (a.endsWith('/') ? file.startsWith(a) : file === a)))
      .flatMap((file) => {
        const names = namesIn(readFileSync(join(src, file), 'utf8'));
        return names.length > 0 ? [`${file}: ${[...new Set(names)].join(', ')}`] : [];
      });
    expect(found).toEqual([]);
  });
});
