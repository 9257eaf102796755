/**
 * Benchmark entry (`npm run bench`, i.e. `node --import tsx test/bench/run.ts`).
 * Benchmarks measure the targets of docs/operations.md; they are not tests and never
 * run under vitest.
 *
 *   npm run bench              every test/bench/*.bench.ts, in name order
 *   npm run bench -- pacing    only test/bench/pacing.bench.ts (several names allowed)
 *
 * A bench module's default export is `async (args: string[]) => void`: it prints
 * its own measurements and throws when it misses its target. The runner goes on
 * with the next module and exits 1 if any failed.
 */
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type BenchMain = (args: string[]) => Promise<void> | void;

const dir = fileURLToPath(new URL('.', import.meta.url));
const SUFFIX = '.bench.ts';

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
  for (const file of files) {
    const name = file.slice(0, -SUFFIX.length);
    process.stdout.write(`\n== bench ${name} ==\n`);
    const started = performance.now();
    try {
      const mod = (await import(pathToFileURL(`${dir}${file}`).href)) as { default?: BenchMain };
      if (typeof mod.default !== 'function') throw new Error(`${file} has no default export function`);
      await mod.default(options);
      process.stdout.write(`== ${name}: done in ${((performance.now() - started) / 1000).toFixed(1)} s ==\n`);
    } catch (error) {
      failed += 1;
      process.stdout.write(`== ${name}: FAILED: ${error instanceof Error ? error.message : String(error)} ==\n`);
    }
  }
  if (files.length === 0) process.stdout.write('no bench modules found\n');
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
