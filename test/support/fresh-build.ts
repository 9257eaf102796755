import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What the build reads: a change to any of these makes dist/ stale. */
const BUILD_INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'scripts/bundle-cli.ts'];

/** Modification times (ms) of every file under `path`, walked depth first. */
function mtimes(path: string, suffix = ''): number[] {
  if (!existsSync(path)) return [];
  const stat = statSync(path);
  if (!stat.isDirectory()) return path.endsWith(suffix) ? [stat.mtimeMs] : [];
  return readdirSync(path).flatMap((name) => mtimes(join(path, name), suffix));
}

/**
 * Why dist/ is older than its sources, or undefined when it is current. tsc rewrites every
 * output on a build, so the oldest .js under dist/ is when the last build ended.
 */
export function staleBuild(root: string): string | undefined {
  const built = mtimes(join(root, 'dist'), '.js');
  if (built.length === 0) return 'no dist/';
  const buildTime = Math.min(...built);
  const newest = Math.max(...BUILD_INPUTS.flatMap((input) => mtimes(join(root, input))));
  return newest > buildTime ? 'a source is newer than dist/' : undefined;
}

/**
 * Vitest global setup: the tests run the CLI as users do, from dist/ (`npm ci` builds it), so a
 * source edited since the last build is built first; a run never tests a stale CLI. tsc emits
 * even with type errors (they are lint's to report), so only a build that wrote nothing fails.
 * The build starts from an empty dist/: no output of a source since removed is left behind.
 */
export default function setup(): void {
  const reason = staleBuild(ROOT);
  if (reason === undefined) return;
  console.log(`fresh-build: ${reason}; dist/ removed, then npm run build`);
  // From scratch: tsc leaves the output of a source since moved or deleted, which would stay old.
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.error) throw build.error;
  const still = staleBuild(ROOT);
  if (still !== undefined) throw new Error(`npm run build left dist/ stale (${still}; exit ${build.status})`);
}
