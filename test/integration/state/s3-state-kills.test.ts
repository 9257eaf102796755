import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { openStateDb } from '../../../src/state/database.js';
import { createS3ObjectStore } from '../../../src/state/remote/s3-object-store.js';
import { objectsOf, parseHead, type StateHead } from '../../../src/state/remote/state-head.js';
import { openRemoteState } from '../../../src/state/state-handle.js';
import { S3TestServer, type SeenRequest } from '../output/support/s3-test-server.js';
import { S3_ENV } from '../resilience/s3-support.js';
import {
  expectNoFileListedTwice,
  expectSameMergedOutput,
  referenceOutput,
  runBuiltCli,
  runBuiltCliKilledWhen,
  touchConversations,
  walkFiles,
} from '../resilience/support.js';
import { readTables, type SyncEnv, startSyncEnv } from '../sync/support.js';

/** Several real CLI processes in a row: minutes on a loaded machine. */
const TIMEOUT_MS = 240_000;
const STATE_KEY = 'killed/state.sqlite';

/**
 * The state in object storage (s3rver), kept as a head naming a base and
 * change files, with a real CLI sync SIGKILLed at the points that layout
 * adds: while its first base is being written (converting a state written as
 * one object by an earlier version), while a change file is being written,
 * right after a head naming change files was written, and while a new base is
 * written for a state whose change files have outgrown the last. Each kill
 * hits the run resumed from the previous one. After every kill the state the
 * bucket holds (rebuilt as the next run would) names no file that is not in
 * the output, and the last run's merged output equals a clean sync's, with no
 * file listed twice.
 */
let s3: S3TestServer;
let env: SyncEnv;
beforeAll(async () => {
  s3 = new S3TestServer();
  await s3.start();
  env = await startSyncEnv({ seed: 41, conversations: 300 });
  mkdirSync(join(env.dir, 'tmp'));
});
afterAll(async () => {
  await env?.close();
  await s3?.stop();
});

const puts = (from: number, test: (r: SeenRequest) => boolean) =>
  s3.seen.slice(from).filter((r) => r.method === 'PUT' && test(r)).length;
const path = (r: SeenRequest) => decodeURIComponent(r.url.split('?')[0] ?? '');
const isHead = (r: SeenRequest) => path(r).endsWith(`/${STATE_KEY}`) && r.status === 200;

interface KillPoint {
  name: string;
  reached(from: number): boolean;
}

const POINTS: KillPoint[] = [
  {
    name: 'the first base PUT, converting a one-object state',
    reached: (f) => puts(f, (r) => path(r).includes('/base-')) >= 1,
  },
  { name: 'a change file PUT, before its head', reached: (f) => puts(f, (r) => path(r).includes('/log-')) >= 3 },
  { name: 'just after a head naming change files', reached: (f) => puts(f, isHead) >= 3 },
  {
    name: 'a new base PUT, once the change files outgrew the last',
    reached: (f) => puts(f, (r) => path(r).includes('/base-')) >= 1,
  },
];

async function bucketHead(): Promise<StateHead | undefined> {
  const store = createS3ObjectStore({
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
  });
  try {
    const object = await store.get(STATE_KEY);
    return object ? parseHead(object.body) : undefined;
  } finally {
    store.close();
  }
}

/** The files the state in the bucket calls committed: what the next run starts from. */
async function committedInBucket(): Promise<string[]> {
  const store = createS3ObjectStore({
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
  });
  const state = await openRemoteState({ store, key: STATE_KEY, logger: silentLogger() });
  try {
    return state.db.db.prepare("SELECT key FROM files WHERE status = 'committed'").pluck().all() as string[];
  } finally {
    await state.close();
    store.close();
  }
}

describe('a sync with its state in object storage, killed where the head, base and change files are written', () => {
  it(
    'resumes after each kill from what the bucket holds, never ahead of the output, and ends equal to a clean sync',
    async () => {
      Object.assign(process.env, S3_ENV);
      // A state written as one object by an earlier version (a plain state database) to start from.
      const legacyPath = join(env.dir, 'legacy', 'state.sqlite');
      openStateDb(legacyPath).close();
      const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true });
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: STATE_KEY, Body: readFileSync(legacyPath) }));
      client.destroy();
      const state = {
        path: `s3://${s3.bucket}/${STATE_KEY}`,
        s3: { endpoint: s3.endpoint, region: 'us-east-1', force_path_style: true, checksum: 'when_required' },
      };
      const settings = {
        source: { rate_limit: { requests_per_minute: 6000, concurrency: 2 } },
        checkpoint: { every_rows: 40, every_seconds: 1 },
        state,
        log: { level: 'error' },
      };
      const config = env.configFile('s3-state-kills.json', settings);
      // The same, with few change files allowed per base: its next upload after a few is a new base.
      const rebasing = env.configFile('s3-state-kills-rebase.json', {
        ...settings,
        state: { ...state, max_change_files: 2 },
      });
      const cliEnv = { ...S3_ENV, TMPDIR: join(env.dir, 'tmp') };
      const generations: string[] = [];
      for (const point of POINTS) {
        const rebase = point === POINTS[3];
        if (rebase) await touchConversations(env, 60, 'before a new base');
        const from = s3.seen.length;
        const run = await runBuiltCliKilledWhen(
          ['sync', '--config', rebase ? rebasing : config],
          () => point.reached(from),
          {
            env: cliEnv,
            everyMs: 2,
          },
        );
        expect(run.signal, `killed at "${point.name}" (the run ended first: exit ${run.code} ${run.stderr})`).toBe(
          'SIGKILL',
        );
        const present = new Set(walkFiles(env.outDir).map((p) => relative(env.outDir, p)));
        for (const key of await committedInBucket())
          expect(present.has(key), `after "${point.name}": ${key}`).toBe(true);
        generations.push((await bucketHead())?.generation ?? 'one object');
      }
      const last = await runBuiltCli(['sync', '--config', config], { env: cliEnv });
      expect(last.code, last.stderr).toBe(0);
      const manifests = walkFiles(join(env.outDir, '_manifests')).map((p) => JSON.parse(readFileSync(p, 'utf8')));
      expectNoFileListedTwice(manifests);
      expectSameMergedOutput(readTables(env.outDir), await referenceOutput(env));
      // Every file the final head names is in the bucket.
      const head = (await bucketHead()) as StateHead;
      const stored = new Set(s3.seen.filter((r) => r.method === 'PUT' && r.status === 200).map(path));
      for (const key of objectsOf(STATE_KEY, head)) expect(stored.has(`/${s3.bucket}/${key}`), key).toBe(true);
      // Killed while writing their base: the earlier version's object stayed until a head replaced
      // it, and the new base was named by no head.
      expect(generations[0]).toBe('one object');
      expect(generations[3]).toBe(generations[2]);
      expect(generations[2]).not.toBe('one object');
    },
    TIMEOUT_MS,
  );
});
