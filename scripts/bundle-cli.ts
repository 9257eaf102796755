/**
 * The second half of `npm run build`: after tsc has compiled every module into
 * dist/, joins the modules the two entry points load (the CLI, dist/cli/main.js,
 * and the demo, dist/demo/main.js) into a few files, replacing those two entries.
 *
 * Why: every command starts by loading its modules, a few hundred of them (ours,
 * zod's ninety-odd, got's), and on Node 20 each costs the ES module loader about
 * a millisecond of resolving, reading and compiling. Joined, a `sync` of a small
 * account took about 0.68 CPU-s instead of 0.93, and `--help` 0.20 instead of
 * 0.30 (docs/architecture.md, Build). The code is tsc's own output, only joined:
 * each lazily loaded part (a command's modules, DuckDB's, S3's) stays a chunk of
 * its own, loaded when it is first needed, as before.
 *
 * Left as they are, loaded from node_modules: packages with native code (SQLite,
 * DuckDB), large ones only some commands load (the AWS SDK, PostgreSQL's driver,
 * the sandbox's fastify, the holiday libraries, prom-client), and pino, whose
 * transports resolve files of their own at run time.
 *
 * The other modules under dist/ stay as tsc wrote them: tests and tools import them one by one.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const ENTRIES = ['cli/main.js', 'demo/main.js'];
/** The banner's first line: a bundle is never bundled again (its chunks would be stale). */
const MARK = '// helpdesk-sync: joined by scripts/bundle-cli.ts';

/** esbuild's `external`: a name leaves its subpaths out too, `@scope/*` every package of the scope. */
export const EXTERNAL = [
  '@aws-sdk/*',
  '@smithy/*',
  '@duckdb/*',
  '@fastify/*',
  'better-sqlite3',
  'date-holidays',
  'fastify',
  'ical.js',
  'pg',
  'pg-copy-streams',
  'pino',
  'prom-client',
];

/** CommonJS code inside a bundle (commander, parts of got) calls require(): this gives it Node's. */
export const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);";

async function main(): Promise<void> {
  for (const entry of ENTRIES) {
    if (readFileSync(join(DIST, entry), 'utf8').slice(0, 200).includes(MARK)) {
      throw new Error(`dist/${entry} is already joined: run the whole build (npm run build), which compiles it first`);
    }
  }

  // A chunk's name carries its content's hash: the last build's would be left beside the new ones.
  rmSync(join(DIST, 'chunks'), { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES.map((entry) => join(DIST, entry)),
    outdir: DIST,
    outbase: DIST,
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: true,
    logLevel: 'warning',
    banner: { js: `${MARK}\n${REQUIRE_BANNER}` },
    external: EXTERNAL,
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
