import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recoverPendingCheckpoints } from '../../../src/commit/recover.js';
import { SinkError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { createSink } from '../../../src/output/sinks/create-sink.js';
import { createS3Sink } from '../../../src/output/sinks/s3-sink.js';
import type { Sink } from '../../../src/output/sinks/sink.js';
import { readParquet } from './support/read-parquet.js';
import { S3TestServer } from './support/s3-test-server.js';
import { sampleRecord } from './support/sample-records.js';
import { SessionFixture, stopAt } from './support/session-fixture.js';

const server = new S3TestServer();
const savedEnv = { ...process.env };
let dir: string;

beforeAll(async () => {
  // Credentials reach the SDK through the standard provider chain (environment here).
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
  await server.start();
  dir = mkdtempSync(join(tmpdir(), 's3-sink-'));
});

afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  process.env = savedEnv;
});

beforeEach(() => {
  server.seen.length = 0;
  server.fault = () => false;
});

function sink(prefix = 'helpdesk', maxAttempts = 2): Sink {
  return createS3Sink({
    bucket: server.bucket,
    prefix,
    region: 'us-east-1',
    endpoint: server.endpoint,
    forcePathStyle: true,
    checksum: 'when_required',
    maxAttempts,
    retry: { attempts: 3, baseDelayMs: 1 },
    logger: silentLogger(),
  });
}

function file(name: string, size: number): { path: string; sha256: string; bytes: number } {
  const data = randomBytes(size);
  const path = join(dir, name);
  writeFileSync(path, data);
  return { path, sha256: createHash('sha256').update(data).digest('hex'), bytes: size };
}

async function list(s: Sink, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  for await (const k of s.list(prefix)) keys.push(k);
  return keys.sort();
}

const parts = () => server.seen.filter((r) => r.method === 'PUT' && r.url.includes('partNumber='));
const MiB = 1024 * 1024;

describe('S3 sink against s3rver', () => {
  it('uploads a small file in one PUT under the prefix, with its sha256 as metadata', async () => {
    const s = sink();
    const f = file('small.bin', 1000);
    await s.put('tags/dt=2026-11-22/r-0001.jsonl.gz', f.path, { ...f, contentType: 'application/gzip' });
    expect(server.seen.map((r) => [r.method, decodeURIComponent(r.url.split('?')[0]!)])).toEqual([
      ['PUT', `/${server.bucket}/helpdesk/tags/dt=2026-11-22/r-0001.jsonl.gz`],
    ]);
    expect(await s.head('tags/dt=2026-11-22/r-0001.jsonl.gz')).toEqual({ bytes: 1000, sha256: f.sha256 });
    expect(await s.head('tags/none')).toBeNull();
    expect(s.describe()).toBe(`s3://${server.bucket}/helpdesk/`);
    expect(await buffer(await s.read('tags/dt=2026-11-22/r-0001.jsonl.gz'))).toEqual(readFileSync(f.path));
    await expect(s.read('tags/none')).rejects.toThrow('could not read');
  });

  it('goes multipart above 8 MiB, retrying a failed part', async () => {
    const s = sink();
    const f = file('big.bin', 9 * MiB);
    let failures = 0;
    server.fault = (r) => r.url.includes('partNumber=1') && failures++ === 0;
    await s.put('conversations/big.jsonl.gz', f.path, { ...f, contentType: 'application/gzip' });
    expect(server.seen.some((r) => r.method === 'POST' && r.url.includes('uploads'))).toBe(true);
    expect(parts().map((r) => [r.url.match(/partNumber=(\d+)/)![1], r.status])).toEqual(
      expect.arrayContaining([
        ['1', 500],
        ['1', 200],
        ['2', 200],
      ]),
    );
    expect(await s.head('conversations/big.jsonl.gz')).toEqual({ bytes: 9 * MiB, sha256: f.sha256 });
  });

  it('restarts a whole upload when the SDK’s own retries are spent', async () => {
    const s = sink('helpdesk', 2);
    const f = file('big2.bin', 9 * MiB);
    let failures = 0;
    server.fault = (r) => r.url.includes('partNumber=2') && failures++ < 2; // both SDK attempts of part 2 fail
    await s.put('conversations/big2.jsonl.gz', f.path, { ...f, contentType: 'application/gzip' });
    const creates = server.seen.filter((r) => r.method === 'POST' && /\?uploads/.test(r.url));
    expect(creates).toHaveLength(2);
    expect(await s.head('conversations/big2.jsonl.gz')).toEqual({ bytes: 9 * MiB, sha256: f.sha256 });
  });

  it('lists nothing half-written when every attempt fails', async () => {
    const s = sink('failing');
    const f = file('big3.bin', 9 * MiB);
    server.fault = (r) => r.url.includes('partNumber=2');
    const error = await s.put('conversations/x.jsonl.gz', f.path, { ...f, contentType: 'a' }).catch((e) => e);
    expect(error).toBeInstanceOf(SinkError);
    expect(String(error.message)).not.toContain('S3RVER');
    server.fault = () => false;
    expect(await list(s)).toEqual([]);
    expect(await s.head('conversations/x.jsonl.gz')).toBeNull();
    expect(server.seen.some((r) => r.method === 'DELETE' && r.url.includes('uploadId='))).toBe(true);
  });

  it('deletes idempotently and lists by prefix across pages', async () => {
    const s = sink('listing');
    for (let i = 0; i < 3; i++) await s.putBytes(`_manifests/m${i}.json`, '{}', 'application/json');
    await s.putBytes('tags/a.jsonl.gz', 'x', 'application/gzip');
    expect(await list(s, '_manifests/')).toEqual(['_manifests/m0.json', '_manifests/m1.json', '_manifests/m2.json']);
    await s.delete('tags/a.jsonl.gz');
    await s.delete('tags/a.jsonl.gz');
    expect(await list(s, 'tags/')).toEqual([]);
  });
});

describe('output session through the S3 sink', () => {
  let fx: SessionFixture;
  beforeEach(() => {
    fx = new SessionFixture();
  });
  afterEach(() => fx.close());

  it('writes the key layout and the manifest under the prefix; recovery verifies by sha256 metadata', async () => {
    const s3 = createSink(
      {
        type: 's3',
        bucket: server.bucket,
        prefix: 'warehouse/helpdesk/',
        region: 'us-east-1',
        endpoint: server.endpoint,
        force_path_style: true,
        checksum: 'when_required',
      },
      silentLogger(),
    );
    const crashed = await fx.open({ sink: s3, faultPoint: stopAt('before-commit') });
    await crashed.writeRow('conversations', sampleRecord('conversations', 1));
    crashed.stage([{ scope: 'fp', key: 'c1', value: 'h' }]);
    await expect(crashed.checkpoint()).rejects.toThrow('stopped');
    rmSync(fx.spool, { recursive: true, force: true });
    expect(await recoverPendingCheckpoints(fx.db, s3, silentLogger())).toEqual({ committed: 1, superseded: 0 });
    expect(fx.kv('fp')).toEqual({ c1: 'h' });

    const run = await fx.open({ sink: s3 });
    await run.writeRow('tags', sampleRecord('tags', 1));
    const { manifestKey } = await run.finish();
    const keys = await list(s3);
    expect(keys).toEqual([
      `_manifests/${run.runId}.json`,
      `conversations/dt=2026-11-22/${crashed.runId}-0001.jsonl.gz`,
      `tags/dt=2026-11-22/${run.runId}-0001.jsonl.gz`,
    ]);
    expect(manifestKey).toBe(`_manifests/${run.runId}.json`);
    const manifestObject = server.seen.find((r) => r.method === 'PUT' && r.url.includes('_manifests/'));
    expect(manifestObject?.url).toContain(`/${server.bucket}/warehouse/helpdesk/_manifests/`);
  });

  it('commits Parquet files through S3 the same way: sha256 metadata, recovery, whole objects a reader opens', async () => {
    const s3 = sink('lake');
    const crashed = await fx.open({ sink: s3, format: 'parquet', faultPoint: stopAt('before-commit') });
    for (let n = 1; n <= 3; n++) await crashed.writeRow('conversations', sampleRecord('conversations', n));
    crashed.stage([{ scope: 'fp', key: 'p1', value: 'h' }]);
    await expect(crashed.checkpoint()).rejects.toThrow('stopped');
    rmSync(fx.spool, { recursive: true, force: true });
    expect(await recoverPendingCheckpoints(fx.db, s3, silentLogger())).toEqual({ committed: 1, superseded: 0 });
    expect(fx.kv('fp')).toEqual({ p1: 'h' });
    const run = await fx.open({ sink: s3, format: 'parquet' });
    await run.writeRow('tags', sampleRecord('tags', 1));
    await run.finish();
    const key = `conversations/dt=2026-11-22/${crashed.runId}-0001.parquet`;
    expect(await list(s3)).toEqual([
      `_manifests/${run.runId}.json`,
      key,
      `tags/dt=2026-11-22/${run.runId}-0001.parquet`,
    ]);
    const body = await buffer(await s3.read(key));
    expect(body.subarray(0, 4).toString()).toBe('PAR1');
    expect(body.subarray(-4).toString()).toBe('PAR1');
    expect(await s3.head(key)).toEqual({ bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') });
    const copy = join(dir, 'from-s3.parquet');
    writeFileSync(copy, body);
    expect((await readParquet(copy)).map((r) => r.id)).toEqual(
      [1, 2, 3].map((n) => sampleRecord('conversations', n).id),
    );
  });
});
