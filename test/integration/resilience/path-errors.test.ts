import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SyncEnv, startSyncEnv } from '../sync/support.js';
import { mountTmpfs, runBuiltCli } from './support.js';

/**
 * Real CLI processes, several per case, their logs in the human form: these cases are about the
 * words a person reads (the JSON form carries the same message: test/integration/sync/json-logs.test.ts).
 */
const HUMAN = { env: { HELPDESK_SYNC_LOG_FORMAT: 'human' } };

const CLI_TEST_TIMEOUT_MS = 120_000;

let env: SyncEnv;
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  env = await startSyncEnv({ seed: 41, conversations: 20 });
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) cleanup();
  await env?.close();
});

const config = (name: string, over: Record<string, unknown>) =>
  env.configFile(name, { streams: ['inboxes', 'conversations'], ...over });

describe('file-system and SQLite errors name the path, the setting and the real cause', () => {
  it(
    'an output directory on a read-only mount: sync and check say read-only, not ENOENT',
    async () => {
      const ro = join(env.dir, 'ro');
      cleanups.push(mountTmpfs(ro, { size: '1m', readOnly: true }));
      const path = config('ro.json', { destination: { type: 'local', path: join(ro, 'out') } });
      const sync = await runBuiltCli(['sync', '--config', path], HUMAN);
      expect(sync.code).toBe(1);
      expect(sync.stderr).toMatch(
        new RegExp(
          `error \\[SINK_ERROR\\]: could not write inboxes/dt=[-\\d]+/\\S+-0001\\.jsonl\\.gz under ${ro}/out ` +
            `\\(destination\\.path\\): read-only file system at ${ro}\\n`,
        ),
      );
      const check = await runBuiltCli(['check', '--config', path], HUMAN);
      expect(check.code).toBe(1);
      expect(check.stdout).toMatch(
        new RegExp(
          `FAIL {2}destination: could not write _probe/\\S+\\.txt under ${ro}/out \\(destination\\.path\\): ` +
            `read-only file system at ${ro}\\n`,
        ),
      );
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'a file where the state directory should be: the lock and the state say which file is in the way',
    async () => {
      const file = join(env.dir, 'not-a-dir');
      writeFileSync(file, 'a file');
      const path = config('file-in-the-way.json', { state: { path: join(file, 'state.sqlite') } });
      const sync = await runBuiltCli(['sync', '--config', path], HUMAN);
      expect(sync.code).toBe(1);
      expect(sync.stderr).toContain(
        `error [STATE_STORAGE]: the state lock ${file}/state.sqlite.lock (beside state.path ` +
          `${file}/state.sqlite) cannot be created: ${file} is a file, not a directory\n`,
      );
      const show = await runBuiltCli(['state', 'show', '--config', path], HUMAN);
      expect(show.code).toBe(1);
      expect(show.stderr).toContain(
        `error [STATE_STORAGE]: state database ${file}/state.sqlite (state.path) cannot be opened: ` +
          `${file} is a file, not a directory\n`,
      );
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'a corrupted state: sync, state show and check name the file and the recovery; check finds it before a run does',
    async () => {
      const statePath = join(env.dir, 'corrupt', 'state.sqlite');
      const path = config('corrupt.json', {
        state: { path: statePath },
        destination: { type: 'local', path: join(env.dir, 'corrupt-out') },
      });
      expect((await runBuiltCli(['sync', '--config', path], HUMAN)).code).toBe(0);
      // Damage the pages after the first two (the header and schema stay readable, as in a torn write).
      const fd = openSync(statePath, 'r+');
      const pageSize = 4096;
      const pages = Math.floor(statSync(statePath).size / pageSize);
      expect(pages).toBeGreaterThan(3);
      const header = Buffer.alloc(16);
      readSync(fd, header, 0, 16, 0);
      expect(header.toString('latin1')).toBe('SQLite format 3\0');
      writeSync(fd, Buffer.alloc(pageSize * (pages - 2), 0xff), 0, pageSize * (pages - 2), pageSize * 2);
      closeSync(fd);
      const recovery =
        'The output already written is not affected. To start again: move the file away ' +
        `(mv ${statePath} ${statePath}.corrupt, with its -wal and -shm files) and run sync: the next run starts ` +
        'from an empty state and writes every row again (duplicates merge on primary keys); or restore a copy of ' +
        'the state and run sync';

      const check = await runBuiltCli(['check', '--config', path], HUMAN);
      expect(check.code).toBe(1);
      expect(check.stdout).toContain(`FAIL  state: state database ${statePath} (state.path) is corrupted (`);
      expect(check.stdout).toContain(recovery);
      const sync = await runBuiltCli(['sync', '--config', path], HUMAN);
      expect(sync.code).toBe(1);
      expect(sync.stderr).toContain(
        `error [STATE_CORRUPT]: state database ${statePath} (state.path) is corrupted (database disk image is malformed). ${recovery}\n`,
      );
      const show = await runBuiltCli(['state', 'show', '--config', path], HUMAN);
      expect(show.stderr).toContain(`state database ${statePath} (state.path) is corrupted`);

      // The recovery as written works: the state moved away, the next run starts afresh and succeeds.
      for (const suffix of ['', '-wal', '-shm']) {
        if (existsSync(`${statePath}${suffix}`)) renameSync(`${statePath}${suffix}`, `${statePath}.corrupt${suffix}`);
      }
      const again = await runBuiltCli(['sync', '--config', path], HUMAN);
      expect(again.code, again.stderr).toBe(0);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'a state directory on a full disk: the lock says no space left, beside which state.path',
    async () => {
      const disk = join(env.dir, 'full-state');
      cleanups.push(mountTmpfs(disk, { size: '1m' }));
      mkdirSync(join(disk, 'state'));
      // Fill it to the last byte.
      const fd = openSync(join(disk, 'filler'), 'w');
      try {
        for (;;) writeSync(fd, Buffer.alloc(4096));
      } catch (error) {
        expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
      } finally {
        closeSync(fd);
      }
      const statePath = join(disk, 'state', 'state.sqlite');
      const sync = await runBuiltCli(
        ['sync', '--config', config('full-state.json', { state: { path: statePath } })],
        HUMAN,
      );
      expect(sync.code).toBe(1);
      expect(sync.stderr).toContain(
        `error [STATE_STORAGE]: the state lock ${statePath}.lock (beside state.path ${statePath}) ` +
          'cannot be created: no space left on device (ENOSPC: no space left on device',
      );
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
