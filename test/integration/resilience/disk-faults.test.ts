import { execFileSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  chownSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTables, type SyncEnv, startSyncEnv } from '../sync/support.js';
import {
  expectSameMergedOutput,
  expectStateBehindOutput,
  kvState,
  mountTmpfs,
  ROOT,
  referenceOutput,
  runBuiltCli,
  touchConversations,
  walkFiles,
} from './support.js';

/** Several real CLI processes in a row: minutes on a loaded machine, not the default minute. */
const CLI_TEST_TIMEOUT_MS = 240_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const manifestsIn = (outDir: string) => walkFiles(join(outDir, '_manifests'));

/** Writes zeros until the filesystem refuses (ENOSPC). */
function fillDisk(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

function mountSmallTmpfs(dir: string): void {
  cleanups.push(mountTmpfs(dir, { size: '16m' }));
}

describe('output directory on a full disk', () => {
  it(
    'fails with exit 1 and an error naming the path, leaves state untouched, and the next run completes',
    async () => {
      const env: SyncEnv = await startSyncEnv({ seed: 31, conversations: 120 });
      cleanups.push(() => env.close());
      const disk = join(env.dir, 'disk');
      mountSmallTmpfs(disk);
      const outDir = join(disk, 'out');
      const config = env.configFile('full-disk.json', { destination: { type: 'local', path: outDir } });

      expect((await runBuiltCli(['sync', '--config', config])).code).toBe(0);
      await touchConversations(env, 5, 'written while the disk is full');
      const before = kvState(env.statePath);
      const filler = join(disk, 'filler');
      fillDisk(filler);

      const failed = await runBuiltCli(['sync', '--config', config]);
      expect(failed.code, failed.stderr).toBe(1);
      expect(failed.stderr).toContain(outDir);
      expect(failed.stderr).toMatch(/no space left on device/i);
      expect(kvState(env.statePath)).toEqual(before);
      expectStateBehindOutput(env.statePath, outDir);
      expect(manifestsIn(outDir)).toHaveLength(1);

      rmSync(filler);
      const healed = await runBuiltCli(['sync', '--config', config]);
      expect(healed.code, healed.stderr).toBe(0);
      expect(manifestsIn(outDir)).toHaveLength(2);
      expectSameMergedOutput(readTables(outDir), await referenceOutput(env));
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe('output directory the process may not write', () => {
  it(
    'fails with exit 1 and an error naming the path, leaves state untouched, and the next run completes',
    async () => {
      const cli = join(ROOT, 'dist', 'cli', 'main.js');
      if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` before this test`);
      const uid = Number(execFileSync('id', ['-u', 'nobody']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'nobody']).toString().trim());
      // The unprivileged user must be able to run the CLI at all.
      execFileSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'test', '-r', cli]);

      const env: SyncEnv = await startSyncEnv({ seed: 32, conversations: 80 });
      cleanups.push(() => env.close());
      chmodSync(env.dir, 0o755);
      const stateDir = join(env.dir, 'nobody-state');
      const outDir = join(env.dir, 'nobody-out');
      for (const dir of [stateDir, outDir]) {
        mkdirSync(dir);
        chownSync(dir, uid, gid);
      }
      const statePath = join(stateDir, 'state.sqlite');
      const config = env.configFile('read-only.json', {
        destination: { type: 'local', path: outDir },
        state: { path: statePath },
      });
      const sync = () => runBuiltCli(['sync', '--config', config], { asUser: 'nobody' });

      const first = await sync();
      expect(first.code, first.stderr).toBe(0);
      await touchConversations(env, 5, 'written while the output is read-only');
      const before = kvState(statePath);
      // Everything under the output directory back to root, 0755: readable, not writable, for nobody.
      execFileSync('chown', ['-R', '0:0', outDir]);
      accessSync(outDir, constants.R_OK);

      const failed = await sync();
      expect(failed.code, failed.stderr).toBe(1);
      expect(failed.stderr).toContain(outDir);
      expect(failed.stderr).toMatch(/permission denied/i);
      expect(kvState(statePath)).toEqual(before);
      expectStateBehindOutput(statePath, outDir);
      expect(manifestsIn(outDir)).toHaveLength(1);

      execFileSync('chown', ['-R', `${uid}:${gid}`, outDir]);
      const healed = await sync();
      expect(healed.code, healed.stderr).toBe(0);
      expect(manifestsIn(outDir)).toHaveLength(2);
      expectSameMergedOutput(readTables(outDir), await referenceOutput(env));
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
