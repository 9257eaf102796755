import { execFile } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { VERSION } from '../../../src/version.js';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * What the package ships (package.json's `files`, the README, the lockfile), copied under `dir`
 * with a package.json that has no `prepare` script. npm 10 runs `prepare` (our build) on `npm
 * pack` even with --ignore-scripts: packing the checkout itself rebuilt dist/ while other test
 * files were running the CLI from it. The tarball holds the same files; only its package.json
 * lacks `prepare`, which an installed package never runs.
 */
function shippedCopy(dir: string): string {
  const copy = join(dir, 'package');
  const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
    files: string[];
    scripts: Record<string, string>;
  };
  for (const path of [...manifest.files, 'README.md', 'package-lock.json'])
    cpSync(path, join(copy, path), { recursive: true });
  delete manifest.scripts.prepare;
  writeFileSync(join(copy, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return copy;
}

/**
 * The Dockerfile's install and runtime stages, without a container engine: the
 * packed package installed with production dependencies only into an empty
 * directory, then run from there. Native builds are not repeated here: the
 * better-sqlite3 binary the repository was built with (for the running Node) is
 * placed where its own install script would put it.
 */
let dir: string;
let sandbox: RunningSandbox;
let bin: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hs-runtime-'));
  sandbox = await startSandbox({ port: 0, seed: 7, conversations: 12, rateLimit: 1_000_000, rateWindowSeconds: 60 });
  const env = { ...process.env, npm_config_update_notifier: 'false' };
  await run(npm, ['pack', '--ignore-scripts', '--pack-destination', dir], {
    cwd: shippedCopy(dir),
    env,
    timeout: 120_000,
  });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz')) as string;
  const prefix = join(dir, 'app');
  await run(
    npm,
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--omit=dev',
      '--ignore-scripts',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(dir, tarball),
    ],
    { env, timeout: 400_000 },
  );
  const installed = join(prefix, 'lib', 'node_modules', 'helpdesk-sync');
  const native = join(installed, 'node_modules', 'better-sqlite3', 'build', 'Release');
  rmSync(native, { recursive: true, force: true });
  await run('mkdir', ['-p', native]);
  copyFileSync(
    resolve('node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
    join(native, 'better_sqlite3.node'),
  );
  bin = join(prefix, 'bin', 'helpdesk-sync');
}, 600_000);
afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed package, installed with production dependencies only', () => {
  it('carries no dev dependency and no test or source file', () => {
    const modules = join(dir, 'app', 'lib', 'node_modules', 'helpdesk-sync', 'node_modules');
    for (const dev of ['vitest', 'typescript', '@biomejs', 'nock', 's3rver', 'tsx']) {
      expect(existsSync(join(modules, dev)), dev).toBe(false);
    }
    const top = readdirSync(join(dir, 'app', 'lib', 'node_modules', 'helpdesk-sync'));
    expect(top).toEqual(expect.arrayContaining(['dist', 'package.json', 'schemas']));
    expect(top).not.toContain('src');
    expect(top).not.toContain('test');
  });

  it('runs --version, check and a sync against the sandbox from an empty directory', async () => {
    const work = join(dir, 'work');
    await run('mkdir', ['-p', join(work, 'config')]);
    writeFileSync(
      join(work, 'config', 'helpdesk-sync.yaml'),
      [
        'source:',
        `  base_url: ${sandbox.baseUrl}`,
        '  token: ${HELPDESK_TOKEN}',
        '  rate_limit: { requests_per_minute: 100000 }',
        'streams: [conversations, messages, contacts, tags, inboxes, users]',
        'destination: { type: local, path: ./out }',
        'state: { path: ./state/state.sqlite }',
        '',
      ].join('\n'),
    );
    const env = { ...process.env, HELPDESK_TOKEN: 'sandbox-admin' };
    const version = await run(bin, ['--version'], { cwd: work, env, timeout: 60_000 });
    expect(version.stdout.trim()).toBe(VERSION);
    const check = await run(bin, ['check'], { cwd: work, env, timeout: 120_000 });
    expect(check.stdout + check.stderr).not.toContain('sandbox-admin');
    const sync = await run(bin, ['sync'], { cwd: work, env, timeout: 240_000 });
    expect(sync.stdout).toMatch(/succeeded|rows/i);
    expect(readdirSync(join(work, 'out', '_manifests')).length).toBe(1);
    expect(readdirSync(join(work, 'out')).sort()).toEqual(expect.arrayContaining(['conversations', 'messages']));
  }, 400_000);
});
