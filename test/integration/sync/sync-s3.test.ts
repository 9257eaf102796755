import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3TestServer } from '../output/support/s3-test-server.js';
import { type SyncEnv, startSyncEnv } from './support.js';

let env: SyncEnv;
const s3 = new S3TestServer();
let client: S3Client;
// Test files share their worker process: what this file sets in the environment, it restores.
const savedEnv = { ...process.env };

beforeAll(async () => {
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
  await s3.start();
  env = await startSyncEnv({ seed: 4, conversations: 80 });
  client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true });
});
afterAll(async () => {
  client?.destroy();
  await env?.close();
  await s3.stop();
  process.env = savedEnv;
});

async function getBytes(key: string): Promise<Buffer> {
  const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from(await object.Body!.transformToByteArray());
}

describe('sync into S3 (s3rver over HTTP)', () => {
  it('uploads every table under the prefix and a manifest that lists exactly those files', async () => {
    const destination = s3.destination();
    const { summary, manifestKey } = await env.sync({ destination });
    expect(summary.status).toBe('succeeded');

    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'helpdesk/' }));
    const keys = (listed.Contents ?? []).map((o) => o.Key!);
    const manifest = JSON.parse((await getBytes(keys.find((k) => k.endsWith(manifestKey))!)).toString('utf8')) as {
      run_id: string;
      files: Array<{ key: string; table: string; rows: number; bytes: number; sha256: string }>;
    };
    expect(manifest.run_id).toBe(summary.run_id);
    const dataKeys = keys.filter((k) => k.endsWith('.jsonl.gz'));
    // Manifest keys are relative to the destination prefix.
    expect(new Set(manifest.files.map((f) => `helpdesk/${f.key}`))).toEqual(new Set(dataKeys));
    const day = summary.started_at.slice(0, 10);
    for (const file of manifest.files) {
      expect(file.key).toMatch(new RegExp(`^${file.table}/dt=${day}/${summary.run_id}-\\d+\\.jsonl\\.gz$`));
      const body = await getBytes(`helpdesk/${file.key}`);
      expect(body.length).toBe(file.bytes);
      expect(createHash('sha256').update(body).digest('hex')).toBe(file.sha256);
      expect(gunzipSync(body).toString('utf8').trimEnd().split('\n')).toHaveLength(file.rows);
    }
    const conversations = manifest.files.filter((f) => f.table === 'conversations').reduce((n, f) => n + f.rows, 0);
    expect(conversations).toBe(summary.conversations_scanned);
  });
});
