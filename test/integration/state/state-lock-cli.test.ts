import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { type CliResult, runCli } from '../sync/cli-run.js';
import { ConditionalS3Server } from './support/conditional-s3-server.js';
import { HoldingProxy } from './support/holding-proxy.js';

// The S3 state and its lock need conditional writes (If-None-Match / If-Match),
// which s3rver ignores: these tests run against ConditionalS3Server, a small
// stand-in that honours them, with real `helpdesk-sync sync` processes.

const STATE_KEY = 'state-bucket/hs/state.sqlite';
const LOCK_KEY = `${STATE_KEY}.lock`;
const awsEnv = {
  AWS_ACCESS_KEY_ID: 'STANDIN',
  AWS_SECRET_ACCESS_KEY: 'STANDIN',
  AWS_EC2_METADATA_DISABLED: 'true',
};

let sandbox: RunningSandbox;
const standin = new ConditionalS3Server();
let dir: string;

beforeAll(async () => {
  await standin.start();
  sandbox = await startSandbox({ port: 0, seed: 9, conversations: 12, rateLimit: 1_000_000, rateWindowSeconds: 60 });
  dir = mkdtempSync(join(tmpdir(), 'hs-state-lock-'));
});
afterAll(async () => {
  await sandbox?.close();
  await standin.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  standin.objects.clear();
});

let configs = 0;
function writeConfig(options: { statePath?: string; baseUrl?: string; out?: string } = {}): string {
  const path = join(dir, `config-${++configs}.json`);
  const config = {
    source: { base_url: options.baseUrl ?? sandbox.baseUrl, token: 'sandbox-admin' },
    // Small runs: what is under test is who gets to run, not what a run writes.
    streams: ['inboxes', 'users'],
    destination: { type: 'local', path: options.out ?? join(dir, `out-${configs}`) },
    state: options.statePath
      ? { path: options.statePath }
      : {
          path: `s3://${STATE_KEY}`,
          s3: { endpoint: standin.endpoint, region: 'us-east-1', force_path_style: true },
        },
    log: { level: 'warn' },
  };
  writeFileSync(path, JSON.stringify(config));
  return path;
}

function sync(config: string, onStart?: (pid: number) => void): Promise<CliResult> {
  return runCli(['sync', '--config', config], {
    env: { ...awsEnv, TMPDIR: dir },
    cwd: mkdtempSync(join(dir, 'cwd-')),
    onStart: (child) => onStart?.(child.pid!),
  });
}

describe('the state lock in object storage, with two real processes', () => {
  it('lets one run and sends the other away with exit 75, naming the holder and its age', async () => {
    const config = writeConfig();
    const atDownload = standin.hold((method, key) => method === 'GET' && key === STATE_KEY);
    let holderPid = 0;
    const first = sync(config, (pid) => {
      holderPid = pid;
    });
    await standin.waitForHeld(atDownload);
    const second = await sync(config);
    expect(second.code).toBe(75);
    expect(second.stderr).toContain(`another run holds the state lock s3://${LOCK_KEY}`);
    expect(second.stderr).toMatch(
      new RegExp(`\\(sync, pid ${holderPid} on ${hostname()}, since \\S+, refreshed \\d+ s ago\\)`),
    );
    standin.release(atDownload);
    expect((await first).code).toBe(0);
    expect(standin.get(STATE_KEY)).toBeDefined();
    expect(standin.get(LOCK_KEY)).toBeUndefined();
  }, 120_000);

  it('has a stale lock taken over by exactly one of two starters meeting it at once, every time', async () => {
    const config = writeConfig();
    for (let round = 0; round < 3; round++) {
      const stale = { id: `gone-${round}`, pid: 4242, host: 'cronjob-pod-gone', command: 'sync', started_at: 'x' };
      standin.put(LOCK_KEY, JSON.stringify(stale), new Date(Date.now() - 10 * 60_000));
      // Both must have read the stale lock before either may replace it.
      standin.hold((method, key) => method === 'GET' && key === LOCK_KEY, 2);
      const atDownload = standin.hold((method, key) => method === 'GET' && key === STATE_KEY);
      const runs = [sync(config), sync(config)];
      const loser = await Promise.race(runs);
      expect(loser.code, loser.stderr).toBe(75);
      expect(loser.stderr).toContain('another run holds the state lock');
      standin.release(atDownload);
      const results = await Promise.all(runs);
      expect(results.map((r) => r.code).sort()).toEqual([0, 75]);
      const takeovers =
        results
          .map((r) => r.stdout + r.stderr)
          .join('')
          .match(/"event":"lock.takeover"/g) ?? [];
      expect(takeovers).toHaveLength(1);
      expect(standin.get(LOCK_KEY)).toBeUndefined();
    }
  }, 120_000);

  it('refuses to overwrite a state that another run wrote after this run read it (exit 1, no manifest)', async () => {
    const out = join(dir, 'out-conflict');
    const config = writeConfig({ out });
    expect((await sync(config)).code).toBe(0);
    const manifestsBefore = readdirSync(join(out, '_manifests'));
    const atUpload = standin.hold((method, key) => method === 'PUT' && key === STATE_KEY);
    const late = sync(config);
    await standin.waitForHeld(atUpload);
    const newer = standin.put(STATE_KEY, 'a newer state, written by another run');
    standin.release(atUpload);
    const result = await late;
    expect(result.code).toBe(1);
    // Off a terminal the logs are JSON, every line (a Node warning of the AWS SDK's included):
    // the error that ended the run is the last, with its code.
    const lines = result.stderr
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-1)).toMatchObject({ event: 'command.failed', code: 'STATE_CONFLICT', exit_code: 1 });
    expect(lines.at(-1)?.message).toContain(
      `the state s3://${STATE_KEY} was written by another run since this run read it`,
    );
    expect(standin.get(STATE_KEY)!.etag).toBe(newer);
    expect(readdirSync(join(out, '_manifests'))).toEqual(manifestsBefore);
  }, 120_000);
});

describe('the state lock on a local disk, with two real processes', () => {
  let proxy: HoldingProxy;
  beforeAll(async () => {
    proxy = new HoldingProxy(sandbox.baseUrl);
    await proxy.start();
  });
  afterAll(async () => {
    await proxy?.stop();
  });

  it('lets one run and sends the other away with exit 75', async () => {
    const statePath = join(dir, 'local', 'state.sqlite');
    proxy.holding = true;
    let holderPid = 0;
    const first = sync(writeConfig({ statePath, baseUrl: proxy.baseUrl }), (pid) => {
      holderPid = pid;
    });
    await proxy.waitForRequest();
    const second = await sync(writeConfig({ statePath }));
    expect(second.code).toBe(75);
    expect(second.stderr).toContain(`another run holds the state lock ${statePath}.lock (sync, pid ${holderPid} on`);
    proxy.releaseAll();
    expect((await first).code).toBe(0);
    expect(existsSync(`${statePath}.lock`)).toBe(false);
  }, 120_000);

  it('has a stale lock file taken over by exactly one of two starters, every time', async () => {
    const statePath = join(dir, 'local-stale', 'state.sqlite');
    const config = writeConfig({ statePath, baseUrl: proxy.baseUrl });
    for (let round = 0; round < 2; round++) {
      const stale = { id: `gone-${round}`, pid: 4242, host: 'cronjob-pod-gone', command: 'sync', started_at: 'x' };
      const { mkdirSync, utimesSync } = await import('node:fs');
      mkdirSync(join(dir, 'local-stale'), { recursive: true });
      writeFileSync(`${statePath}.lock`, JSON.stringify(stale));
      const old = new Date(Date.now() - 10 * 60_000);
      utimesSync(`${statePath}.lock`, old, old);
      proxy.holding = true;
      const runs = [sync(config), sync(config)];
      const loser = await Promise.race(runs);
      expect(loser.code, loser.stderr).toBe(75);
      proxy.releaseAll();
      const results = await Promise.all(runs);
      expect(results.map((r) => r.code).sort()).toEqual([0, 75]);
      expect(existsSync(`${statePath}.lock`)).toBe(false);
      expect(readdirSync(join(dir, 'local-stale')).filter((f) => f.includes('.lock.'))).toEqual([]);
    }
  }, 120_000);
});
