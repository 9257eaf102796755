/**
 * Benchmark entry (`npm run bench`, i.e. `node --import tsx test/bench/run.ts`).
 * Benchmarks measure the targets of docs/performance.md; they are not tests and never
 * run under vitest.
 *
 *   npm run bench              every test/bench/*.bench.ts, in name order
 *   npm run bench -- pacing    only test/bench/pacing.bench.ts (several names allowed)
 *
 * A bench module's default export is
 * `async (args: string[]) => Record<string, unknown> | void`: it prints its own
 * measurements, may return them as a JSON-able object, and throws when it
 * misses its target (an error with a `results` property still hands its
 * figures in). The runner goes on with the next module and exits 1 if any
 * failed.
 *
 * Returned figures are written to `bench-results.json` at the repository root
 * as `{ <module name>: results, …, machine: {node, cpus, date} }`, merged into
 * the file already there, so running one module keeps the others' last figures.
 * The file is a measurement of one machine, not a source: it is not committed
 * (see docs/performance.md for the figures stated).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type BenchResults = Record<string, unknown>;
/** `async (args) => Record<string, unknown> | void`; anything but a plain object is taken as no figures. */
type BenchMain = (args: string[]) => unknown;

const dir = fileURLToPath(new URL('.', import.meta.url));
const SUFFIX = '.bench.ts';
const RESULTS = fileURLToPath(new URL('../../bench-results.json', import.meta.url));

function isResults(value: unknown): value is BenchResults {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Merges this run's figures into bench-results.json; an unreadable old file is replaced. */
function writeResults(fresh: Record<string, BenchResults>): void {
  let previous: BenchResults = {};
  if (existsSync(RESULTS)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(RESULTS, 'utf8'));
      if (isResults(parsed)) previous = parsed;
    } catch {
      process.stdout.write(`bench-results.json was not valid JSON: replacing it\n`);
    }
  }
  const machine = { node: process.version, cpus: cpus().length, date: new Date().toISOString() };
  writeFileSync(RESULTS, `${JSON.stringify({ ...previous, ...fresh, machine }, null, 2)}\n`);
  process.stdout.write(`figures of ${Object.keys(fresh).join(', ')} written to bench-results.json\n`);
}

function discover(): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(SUFFIX))
    .sort();
}

function select(all: string[], names: string[]): string[] {
  if (names.length === 0) return all;
  return names.map((name) => {
    const file = name.endsWith(SUFFIX) ? basename(name) : `${basename(name)}${SUFFIX}`;
    if (!all.includes(file)) {
      throw new Error(`no bench module ${file} in test/bench (have: ${all.join(', ') || 'none'})`);
    }
    return file;
  });
}

async function main(argv: string[]): Promise<number> {
  const names = argv.filter((a) => !a.startsWith('-'));
  const options = argv.filter((a) => a.startsWith('-'));
  const files = select(discover(), names);
  let failed = 0;
  const fresh: Record<string, BenchResults> = {};
  for (const file of files) {
    const name = file.slice(0, -SUFFIX.length);
    process.stdout.write(`\n== bench ${name} ==\n`);
    const started = performance.now();
    try {
      const mod = (await import(pathToFileURL(`${dir}${file}`).href)) as { default?: BenchMain };
      if (typeof mod.default !== 'function') throw new Error(`${file} has no default export function`);
      const results = await mod.default(options);
      if (isResults(results)) fresh[name] = results;
      process.stdout.write(`== ${name}: done in ${((performance.now() - started) / 1000).toFixed(1)} s ==\n`);
    } catch (error) {
      failed += 1;
      const results: unknown = (error as { results?: unknown } | null)?.results;
      if (isResults(results)) fresh[name] = results;
      process.stdout.write(`== ${name}: FAILED: ${error instanceof Error ? error.message : String(error)} ==\n`);
    }
  }
  if (files.length === 0) process.stdout.write('no bench modules found\n');
  if (Object.keys(fresh).length > 0) writeResults(fresh);
  return failed === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
