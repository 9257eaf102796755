import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFile } from '../../../src/state/remote/upload-file.js';
import { S3TestServer } from '../output/support/s3-test-server.js';

/** S3's smallest part (all but the last): the cut is tested at the size a store accepts. */
const PART = 5 * 1024 * 1024;

let s3: S3TestServer;
let client: S3Client;
let dir: string;

beforeAll(async () => {
  s3 = new S3TestServer();
  await s3.start();
  client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 1,
  });
  dir = mkdtempSync(join(tmpdir(), 'hs-upload-file-'));
});

afterAll(async () => {
  client.destroy();
  await s3.stop();
  rmSync(dir, { recursive: true, force: true });
});

function fileOf(name: string, bytes: number): { path: string; content: Buffer } {
  const content = randomBytes(bytes);
  const path = join(dir, name);
  writeFileSync(path, content);
  return { path, content };
}

async function stored(key: string): Promise<Buffer> {
  const out = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

/** The requests made for `key` since `from`, as "METHOD what" (parts by number). */
function requestsFor(key: string, from: number): string[] {
  return s3.seen.slice(from).flatMap((r) => {
    const url = new URL(r.url, 'http://x');
    if (!url.pathname.endsWith(`/${key}`)) return [];
    const q = url.searchParams;
    const what = q.has('uploads')
      ? 'create'
      : q.has('partNumber')
        ? `part ${q.get('partNumber')}`
        : q.has('uploadId')
          ? r.method === 'DELETE'
            ? 'abort'
            : 'complete'
          : 'object';
    return [`${r.method} ${what}`];
  });
}

describe('uploadFile', () => {
  it('sends a file that fits one part as one PutObject', async () => {
    const { path, content } = fileOf('small.sqlite', 1000);
    const from = s3.seen.length;
    await uploadFile({ client, Bucket: s3.bucket, Key: 'small.sqlite', partSize: PART, parallel: 2 }, path);
    expect(requestsFor('small.sqlite', from)).toEqual(['PUT object']);
    expect((await stored('small.sqlite')).equals(content)).toBe(true);
  });

  it('sends a larger file in parts (each sender reusing its buffer) and stores it byte for byte', async () => {
    // 3 full parts and a short last one: every buffer is reused at least once, and the last read is partial.
    const { path, content } = fileOf('large.sqlite', 3 * PART + 12_345);
    const from = s3.seen.length;
    await uploadFile({ client, Bucket: s3.bucket, Key: 'large.sqlite', partSize: PART, parallel: 2 }, path);
    const requests = requestsFor('large.sqlite', from);
    expect(requests[0]).toBe('POST create');
    expect(requests.slice(1, -1).sort()).toEqual(['PUT part 1', 'PUT part 2', 'PUT part 3', 'PUT part 4']);
    expect(requests.at(-1)).toBe('POST complete');
    expect((await stored('large.sqlite')).equals(content)).toBe(true);
  });

  it('aborts the multipart upload when a part fails, starts no part after it, and leaves no object', async () => {
    const { path } = fileOf('failing.sqlite', 2 * PART + 1);
    const from = s3.seen.length;
    s3.fault = (r) => r.url.includes('failing.sqlite') && r.url.includes('partNumber=2');
    try {
      await expect(
        uploadFile({ client, Bucket: s3.bucket, Key: 'failing.sqlite', partSize: PART, parallel: 2 }, path),
      ).rejects.toThrow();
    } finally {
      s3.fault = () => false;
    }
    // The other sender takes no part once one failed, and its part under way is awaited: none starts after the abort.
    expect(requestsFor('failing.sqlite', from).at(-1)).toBe('DELETE abort');
    await expect(stored('failing.sqlite')).rejects.toMatchObject({ name: 'NoSuchKey' });
  });

  it('sends an empty file as an empty object', async () => {
    const { path } = fileOf('empty.sqlite', 0);
    await uploadFile({ client, Bucket: s3.bucket, Key: 'empty.sqlite', partSize: PART, parallel: 2 }, path);
    expect((await stored('empty.sqlite')).length).toBe(0);
  });
});
