import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3TestServer } from '../output/support/s3-test-server.js';
import { type SyncEnv, startSyncEnv } from '../sync/support.js';
import { readS3Output, S3_ENV, TcpGate } from './s3-support.js';
import {
  expectNoFileListedTwice,
  expectSameMergedOutput,
  kvState,
  referenceOutput,
  runBuiltCli,
  touchConversations,
} from './support.js';

/** Several real CLI processes in a row: minutes on a loaded machine, not the default minute. */
const CLI_TEST_TIMEOUT_MS = 240_000;

let env: SyncEnv;
let s3: S3TestServer;
let gate: TcpGate;

beforeAll(async () => {
  s3 = new S3TestServer();
  await s3.start();
  gate = new TcpGate(Number(new URL(s3.endpoint).port));
  await gate.open();
  env = await startSyncEnv({ seed: 35, conversations: 200 });
});
afterAll(async () => {
  await gate?.shut();
  await s3?.stop();
  await env?.close();
});

const listPages = () => env.sandbox.stats().by_route['POST /v1/search']?.['200'] ?? 0;
const puts = () => s3.seen.filter((r) => r.method === 'PUT').length;

describe('S3 stops in the middle of a sync', () => {
  it(
    'uploads are retried, then the run fails clearly with state untouched; with S3 back the next run completes',
    async () => {
      const config = env.configFile('s3-outage.json', {
        source: { rate_limit: { requests_per_minute: 3000, concurrency: 2 } },
        destination: s3.destination('helpdesk', gate.endpoint),
        checkpoint: { every_rows: 50, every_seconds: 1 },
      });
      const sync = () => runBuiltCli(['sync', '--config', config], { env: S3_ENV });
      const first = await sync();
      expect(first.code, first.stderr).toBe(0);

      await touchConversations(env, 30, 'changed while S3 is down');
      const before = kvState(env.statePath);
      const pagesBefore = listPages();
      const putsBefore = puts();
      let putsAtOutage = -1;
      const watcher = setInterval(() => {
        // Mid-sync: the conversation listing has begun; S3 goes away before this run uploads anything.
        if (putsAtOutage < 0 && listPages() > pagesBefore) {
          putsAtOutage = puts() - putsBefore;
          void gate.shut();
        }
      }, 5);
      const failed = await sync().finally(() => clearInterval(watcher));
      expect(putsAtOutage, 'S3 was stopped during the run, before its first upload').toBe(0);
      expect(failed.code, failed.stderr).toBe(1);
      const retries = failed.stderr.split('\n').filter((l) => l.includes('upload failed, retrying'));
      expect(retries.length).toBeGreaterThanOrEqual(2);
      const last = failed.stderr.trim().split('\n').at(-1) as string;
      expect(last).toMatch(/SINK_ERROR/);
      expect(last).toContain(s3.bucket);
      expect(last).toMatch(/ECONNREFUSED|connect/i);
      expect(kvState(env.statePath)).toEqual(before);

      await gate.open();
      const healed = await sync();
      expect(healed.code, healed.stderr).toBe(0);
      const out = await readS3Output(s3.endpoint, s3.bucket, 'helpdesk');
      expect(out.manifests).toHaveLength(2);
      expectNoFileListedTwice(out.manifests);
      // Every data object is listed by a manifest: nothing orphaned by the failed run.
      expect(new Set(out.manifests.flatMap((m) => m.files.map((f) => f.key)))).toEqual(new Set(out.dataKeys));
      expectSameMergedOutput(out.tables, await referenceOutput(env));
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
