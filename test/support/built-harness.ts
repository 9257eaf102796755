import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import ts from 'typescript';
import { EXTERNAL, REQUIRE_BANNER } from '../../scripts/bundle-cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * Where the plain-JavaScript copies go: inside the checkout (so `node_modules` is found by the
 * usual walk up) and in npm's conventional cache folder, which no test or guard looks at.
 */
const OUT = join(ROOT, 'node_modules', '.cache', 'helpdesk-sync-harness');
const RELATIVE_IMPORT = /\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/**
 * A harness script (a test's own child process that drives the real modules, e.g. the crash
 * harness) as plain JavaScript that node runs without a TypeScript loader: about 0.45 CPU-s a
 * start under `node --import tsx` against about 0.15 this way. The script and the test files it
 * imports are transpiled (types dropped, nothing checked: lint checks them) into a mirror of
 * the checkout whose `src` is a link to `dist/`, so its imports of the sources run the build,
 * as the CLI tests do (the integration project's global setup keeps `dist/` current). Then,
 * as the build does for the CLI (scripts/bundle-cli.ts), the harness and the modules it loads are
 * joined into one file: a start costs about 0.1 CPU-s less than loading them one by one.
 * Returns the path of the script to give to `node`.
 */
export function builtHarness(entry: string): string {
  ensureSourcesLink();
  const seen = new Set<string>();
  const pending = [resolve(entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const [, specifier] of source.matchAll(RELATIVE_IMPORT)) {
      const target = resolve(dirname(file), specifier!).replace(/\.js$/, '.ts');
      if (!relative(ROOT, target).startsWith(`src/`)) pending.push(target);
    }
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
      fileName: file,
    });
    writeAtomically(outPath(file), outputText);
  }
  const script = outPath(resolve(entry));
  const joined = script.replace(/\.js$/, '.joined.js');
  const temp = `${joined}.${process.pid}.tmp`;
  buildSync({
    entryPoints: [script],
    outfile: temp,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    banner: { js: REQUIRE_BANNER },
    logLevel: 'warning',
  });
  renameSync(temp, joined);
  return joined;
}

function outPath(file: string): string {
  return join(OUT, relative(ROOT, file)).replace(/\.ts$/, '.js');
}

/** Two test files may build at once: each writes a temp file and renames it over the last. */
function writeAtomically(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

function ensureSourcesLink(): void {
  mkdirSync(OUT, { recursive: true });
  const link = join(OUT, 'src');
  const temp = `${link}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  symlinkSync(join(ROOT, 'dist'), temp, 'dir');
  renameSync(temp, link);
}
