import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3TestServer } from '../output/support/s3-test-server.js';
import type { CliResult } from '../sync/cli-run.js';
import { readTables, type SyncEnv, startSyncEnv } from '../sync/support.js';
import { readS3Output, S3_ENV } from './s3-support.js';
import {
  expectNoFileListedTwice,
  expectSameMergedOutput,
  expectStateBehindOutput,
  referenceOutput,
  runBuiltCli,
  walkFiles,
} from './support.js';

/** Several real CLI processes in a row: minutes on a loaded machine, not the default minute. */
const CLI_TEST_TIMEOUT_MS = 240_000;

/**
 * A real CLI sync SIGKILLed at twelve points, spread over the streams (the
 * dimension lists, the conversation listing, thread fetches, the reports),
 * checkpoints and uploads, six with local output and six with S3 output. Each
 * kill hits the run that resumed from the previous one; a last run completes,
 * and the merged output must equal a clean sync's, with no file listed twice.
 *
 * The points are observed from outside (the sandbox's request counts, the
 * output files or S3 PUTs, the committed checkpoints in the state database) and
 * the process is killed within a few milliseconds of reaching them.
 */
let s3: S3TestServer;
const envs: SyncEnv[] = [];
beforeAll(async () => {
  s3 = new S3TestServer();
  await s3.start();
});
afterAll(async () => {
  for (const env of envs) await env.close();
  await s3?.stop();
});

interface Observed {
  route(part: string): number;
  checkpoints(): number;
  uploads(): number;
}

interface KillPoint {
  name: string;
  /** True once this run (counts relative to its start) reached the point. */
  reached(now: Observed, start: Observed): boolean;
}

const delta = (part: string, n: number) => (now: Observed, start: Observed) => now.route(part) - start.route(part) >= n;

/** A value read when first asked for, then kept. */
function once<T>(read: () => T): () => T {
  let kept: { value: T } | undefined;
  return () => {
    kept ??= { value: read() };
    return kept.value;
  };
}

function committedCheckpoints(statePath: string): number {
  try {
    const db = new Database(statePath, { readonly: true, fileMustExist: true });
    const row = db.prepare("SELECT count(*) AS n FROM checkpoints WHERE status = 'committed'").get() as { n: number };
    db.close();
    return row.n;
  } catch {
    // No state database yet (the first run has not opened it).
    return 0;
  }
}

/**
 * What the run has done so far, each measure taken when first asked for: a poll every few
 * milliseconds reads only what its kill point watches (the request counts, the state database
 * or the uploads), not all three.
 */
function observe(env: SyncEnv, uploads: () => number): Observed {
  const routes = once(() => Object.entries(env.sandbox.stats().by_route));
  return {
    route: (part) =>
      routes()
        .filter(([key]) => key.includes(part))
        .reduce((n, [, s]) => n + Object.values(s).reduce((a, b) => a + b, 0), 0),
    checkpoints: once(() => committedCheckpoints(env.statePath)),
    uploads: once(uploads),
  };
}

/** Every measure taken now: where a run starts, which its polls are compared with. */
function observeAll(env: SyncEnv, uploads: () => number): Observed {
  const observed = observe(env, uploads);
  observed.route('');
  observed.checkpoints();
  observed.uploads();
  return observed;
}

async function killedAt(
  env: SyncEnv,
  config: string,
  point: KillPoint,
  uploads: () => number,
  extraEnv = {},
): Promise<void> {
  const start = observeAll(env, uploads);
  const run = runBuiltCli(['sync', '--config', config], {
    env: extraEnv,
    onStart: (child) => {
      const timer = setInterval(() => {
        if (point.reached(observe(env, uploads), start)) {
          child.kill('SIGKILL');
          clearInterval(timer);
        }
      }, 5);
      child.on('close', () => clearInterval(timer));
    },
  });
  const result: CliResult = await run;
  expect(result.signal, `killed at "${point.name}" (the run ended first: exit ${result.code} ${result.stderr})`).toBe(
    'SIGKILL',
  );
}

const THREADS = 'GET /v1/conversation/:conversation_id/messages';

const LOCAL_POINTS: KillPoint[] = [
  { name: 'dimension streams: users answered', reached: delta('/settings/users', 1) },
  { name: 'conversation scan: first list page', reached: delta('POST /v1/search', 1) },
  { name: 'thread fetches: 30 of this run', reached: delta(THREADS, 30) },
  { name: 'upload: first data file placed', reached: (now, start) => now.uploads() > start.uploads() },
  { name: 'checkpoints: two committed', reached: (now, start) => now.checkpoints() - start.checkpoints() >= 2 },
  { name: 'reports stream: first day requested', reached: delta('/productivity', 1) },
];

const S3_POINTS: KillPoint[] = [
  { name: 'dimension streams: first tags page', reached: delta('/tags', 1) },
  { name: 'thread fetches: 20 of this run', reached: delta(THREADS, 20) },
  { name: 'upload: first data object PUT', reached: (now, start) => now.uploads() > start.uploads() },
  { name: 'checkpoints: one committed', reached: (now, start) => now.checkpoints() - start.checkpoints() >= 1 },
  { name: 'upload: three data objects PUT', reached: (now, start) => now.uploads() - start.uploads() >= 3 },
  { name: 'reports stream: first day requested', reached: delta('/productivity', 1) },
];

const slow = {
  source: { rate_limit: { requests_per_minute: 6000, concurrency: 2 } },
  checkpoint: { every_rows: 60, every_seconds: 1 },
  log: { level: 'error' },
};

describe('a real CLI sync killed at twelve points', () => {
  it(
    'local output: six kills, then the merged output equals a clean sync',
    async () => {
      const env = await startSyncEnv({ seed: 36, conversations: 300 });
      envs.push(env);
      const config = env.configFile('kill-local.json', slow);
      const dataFiles = () => walkFiles(env.outDir).filter((p) => p.endsWith('.jsonl.gz')).length;
      for (const point of LOCAL_POINTS) {
        await killedAt(env, config, point, dataFiles);
        expectStateBehindOutput(env.statePath, env.outDir);
      }
      const final = await runBuiltCli(['sync', '--config', config]);
      expect(final.code, final.stderr).toBe(0);
      const manifests = walkFiles(join(env.outDir, '_manifests')).map((p) => JSON.parse(readFileSync(p, 'utf8')));
      expectNoFileListedTwice(manifests);
      expectSameMergedOutput(readTables(env.outDir), await referenceOutput(env));
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'S3 output: six kills, then the merged output equals a clean sync',
    async () => {
      const env = await startSyncEnv({ seed: 37, conversations: 300 });
      envs.push(env);
      const config = env.configFile('kill-s3.json', {
        ...slow,
        destination: s3.destination('killed'),
      });
      const dataPuts = () =>
        s3.seen.filter((r) => r.method === 'PUT' && r.url.includes('.jsonl.gz') && r.status === 200).length;
      for (const point of S3_POINTS) await killedAt(env, config, point, dataPuts, S3_ENV);
      const final = await runBuiltCli(['sync', '--config', config], { env: S3_ENV });
      expect(final.code, final.stderr).toBe(0);
      const out = await readS3Output(s3.endpoint, s3.bucket, 'killed');
      expectNoFileListedTwice(out.manifests);
      expectSameMergedOutput(out.tables, await referenceOutput(env));
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
