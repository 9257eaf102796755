/**
 * `load` reads the output where the sync wrote it: here an S3 bucket (s3rver),
 * through the same sink and credentials as the sync, each object checked against
 * its manifest. Two syncs with a change between them, a load after each: the
 * DuckDB tables equal the bucket's rows field by field.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadJob } from '../../../src/load/load-job.js';
import { silentLogger } from '../../../src/log.js';
import { TABLE_NAMES } from '../../../src/output/tables.js';
import { S3TestServer } from '../output/support/s3-test-server.js';
import { readS3Output, S3_ENV } from '../resilience/s3-support.js';
import { touchConversations } from '../resilience/support.js';
import { type SyncEnv, startSyncEnv } from '../sync/support.js';
import { latestDocs, warehouseDocs, withDuckdb } from './support.js';

let env: SyncEnv;
let s3: S3TestServer;
let duckPath: string;
const loaded: number[] = [];

beforeAll(async () => {
  Object.assign(process.env, S3_ENV);
  s3 = new S3TestServer();
  await s3.start();
  env = await startSyncEnv({ seed: 55, conversations: 15 });
  duckPath = join(env.dir, 's3-loaded.duckdb');
  const destination = s3.destination('lake');
  const load = async () => {
    const summary = await loadJob(env.config({ destination }), { into: `duckdb:${duckPath}`, logger: silentLogger() });
    expect(summary.status, summary.failure?.message).toBe('succeeded');
    loaded.push(summary.manifests_loaded);
  };
  await env.sync({ destination });
  await load();
  await touchConversations(env, 3, 'from the bucket');
  await env.sync({ destination });
  await load();
}, 120_000);

afterAll(async () => {
  await env?.close();
  await s3?.stop();
});

describe('load from S3 output', () => {
  it('each load took its sync’s manifest, and the tables equal the bucket’s rows', async () => {
    expect(loaded).toEqual([1, 1]);
    const bucket = await readS3Output(s3.endpoint, s3.bucket, 'lake');
    expect(bucket.manifests).toHaveLength(2);
    for (const table of TABLE_NAMES) {
      const want = latestDocs(table, bucket.tables[table]);
      const got = await withDuckdb(duckPath, (read) => warehouseDocs('duckdb', read, table, table));
      expect(got, table).toEqual(want);
    }
  });
});
