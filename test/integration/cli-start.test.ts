import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'cli-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PACKAGE = String.raw`/node_modules\/((?:@[^/]+\/)?[^/]+)/`;

/**
 * Loads the built CLI's whole command line in a fresh process, as `helpdesk-sync`
 * does before it runs any command, and lists the packages loaded by then: those
 * imported as ES modules (seen by a resolve hook, which runs on a thread of its
 * own and so writes to a file: its writes to stderr can be cut off when the
 * process exits) and those required as CommonJS (in the require cache).
 */
function packagesLoadedAtStart(): string[] {
  const hooks = join(dir, 'hooks.mjs');
  const seen = join(dir, 'esm.txt');
  writeFileSync(seen, '');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
    export async function resolve(specifier, context, next) {
      const found = await next(specifier, context);
      const name = found.url.match(${PACKAGE})?.[1];
      if (name) appendFileSync(${JSON.stringify(seen)}, name + '\\n');
      return found;
    }`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooks).href)});`,
  );
  const script = `
    import { createRequire } from 'node:module';
    const { buildProgram } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'cli', 'program.js')).href)});
    buildProgram();
    for (const path of Object.keys(createRequire(import.meta.url).cache)) {
      const name = path.match(${PACKAGE})?.[1];
      if (name) console.log(name);
    }
  `;
  const result = spawnSync(process.execPath, ['--import', register, '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(result.status, result.stderr).toBe(0);
  const esm = readFileSync(seen, 'utf8').split('\n').filter(Boolean);
  return [...new Set([...esm, ...result.stdout.split('\n').filter(Boolean)])];
}

describe('the CLI at start', () => {
  it('loads no library that only some commands use (the AWS SDK, fastify, date-holidays, SQLite, the HTTP client)', () => {
    const loaded = packagesLoadedAtStart();
    // What every command needs is seen, as ES module and as CommonJS: the check sees what is loaded.
    expect(loaded).toContain('zod');
    expect(loaded).toContain('pino');
    // A command loads what it runs when it runs (the state, the API client, the push layer).
    const heavies = ['@aws-sdk/client-s3', '@aws-sdk/lib-storage', 'fastify', 'date-holidays', 'better-sqlite3', 'got'];
    for (const heavy of heavies) {
      expect(loaded, heavy).not.toContain(heavy);
    }
  });
});
