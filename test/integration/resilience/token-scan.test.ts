import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../sync/cli-run.js';
import { type SyncEnv, startSyncEnv, threadRequests } from '../sync/support.js';
import { findNeedles, runBuiltCli, walkFiles } from './support.js';

/** Several real CLI processes in a row: minutes on a loaded machine, not the default minute. */
const CLI_TEST_TIMEOUT_MS = 240_000;

/** The sandbox's admin token: what must never be written anywhere. */
const TOKEN = 'sandbox-admin';
let env: SyncEnv;

beforeAll(async () => {
  env = await startSyncEnv({ seed: 33, conversations: 60 });
});
afterAll(async () => {
  await env?.close();
});

/** Every place under `dir` (and in `texts`) where the token appears. */
const leaks = (dir: string, texts: Record<string, string>) => findNeedles(dir, texts, [TOKEN]);

function writeConfig(name: string, destination: Record<string, unknown>): string {
  const path = join(env.dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      // The token comes from the environment, as in production.
      source: {
        base_url: env.sandbox.baseUrl,
        token: '${HELPDESK_TOKEN}',
        rate_limit: { requests_per_minute: 100000 },
      },
      destination,
      state: { path: env.statePath },
      reports: { lookback_days: 0 },
      checkpoint: { every_rows: 100, every_seconds: 1 },
      log: { level: 'trace' },
    }),
  );
  return path;
}

const tokenEnv = { HELPDESK_TOKEN: TOKEN };

describe('no artefact holds the token', () => {
  it('the scan finds a token where one is planted (so it can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hs-planted-'));
    try {
      writeFileSync(join(dir, 'rows.jsonl.gz'), gzipSync(`{"note":"Bearer ${TOKEN}"}\n`));
      expect(leaks(dir, { log: 'clean' })).toEqual(['rows.jsonl.gz']);
      expect(leaks(join(dir, 'none'), { log: `token=${TOKEN}` })).toEqual(['log']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(
    'after a successful, a failed and a killed run: logs, output files, manifests, state and spool',
    async () => {
      const ok = await runBuiltCli(['sync', '--config', writeConfig('ok.json', { type: 'local', path: env.outDir })], {
        env: tokenEnv,
      });
      expect(ok.code, ok.stderr).toBe(0);
      // Trace logging: the scan reads every log line the run can write.
      expect(ok.stderr.split('\n').length).toBeGreaterThan(10);
      expect(walkFiles(join(env.outDir, '_manifests')).length).toBe(1);
      expect(leaks(env.dir, { stdout: ok.stdout, stderr: ok.stderr })).toEqual([]);

      // Failed: the destination is a regular file, so the first upload fails after rows were spooled.
      const blocker = join(env.dir, 'blocker');
      writeFileSync(blocker, 'not a directory');
      const failed = await runBuiltCli(
        ['sync', '--full-refresh', '--config', writeConfig('failed.json', { type: 'local', path: blocker })],
        { env: tokenEnv },
      );
      expect(failed.code, failed.stderr).toBe(1);
      expect(failed.stderr).toContain(blocker);
      expect(leaks(env.dir, { stdout: failed.stdout, stderr: failed.stderr })).toEqual([]);

      // Killed: the spool is left as it was at the kill, and scanned as it is.
      const before = threadRequests(env.sandbox);
      let timer: NodeJS.Timeout | undefined;
      const killed = await runCli(
        ['sync', '--full-refresh', '--config', writeConfig('killed.json', { type: 'local', path: env.outDir })],
        {
          env: tokenEnv,
          onStart: (child) => {
            timer = setInterval(() => {
              if (threadRequests(env.sandbox) - before >= 40) child.kill('SIGKILL');
            }, 10);
          },
        },
      );
      clearInterval(timer);
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const spool = walkFiles(join(env.dir, 'state', 'state.spool'));
      expect(spool.length).toBeGreaterThan(0);
      expect(leaks(env.dir, { stdout: killed.stdout, stderr: killed.stderr })).toEqual([]);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
