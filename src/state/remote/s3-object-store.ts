import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StateError } from '../../errors.js';
import { createS3Client, type S3ConnectionOptions } from '../../output/sinks/s3-client.js';
import { s3Sdk } from '../../output/sinks/s3-sdk.js';
import type { ObjectStore, WriteCondition } from './object-store.js';
import { uploadFile } from './upload-file.js';

export interface S3ObjectStoreOptions extends S3ConnectionOptions {
  bucket: string;
}

/** Part size for uploads of the state's files: one PutObject up to this size, multipart above. */
const PART_SIZE = 8 * 1024 * 1024;

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function isMissing(error: unknown): boolean {
  return statusOf(error) === 404 || (error as Error)?.name === 'NoSuchKey';
}

/**
 * A failed write condition. 412 is the rule; S3 answers an If-Match on a missing
 * object with 404 and a conditional write racing another one with 409
 * (ConditionalRequestConflict): both mean "not as you last saw it" here too.
 */
function conditionFailed(error: unknown, condition: WriteCondition | { ifMatch: string }): boolean {
  const status = statusOf(error);
  if (status === 412 || status === 409) return true;
  return status === 404 && 'ifMatch' in condition;
}

/**
 * The state's object store on S3 (or an S3-compatible server that honours
 * If-Match / If-None-Match on writes). Credentials come from the standard AWS
 * provider chain; none is ever logged.
 */
export function createS3ObjectStore(options: S3ObjectStoreOptions): ObjectStore {
  const { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } = s3Sdk();
  const client = createS3Client(options);
  const Bucket = options.bucket;
  const describe = (key: string) => `s3://${Bucket}/${key}`;
  const fail = (what: string, key: string, error: unknown) =>
    new StateError(`could not ${what} ${describe(key)}: ${(error as Error)?.message ?? error}`, { cause: error });
  return {
    describe,
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: key }));
        const body = Buffer.from(await out.Body!.transformToByteArray());
        return { body, etag: out.ETag ?? '', lastModified: out.LastModified ?? new Date(0) };
      } catch (error) {
        if (isMissing(error)) return null;
        throw fail('read', key, error);
      }
    },
    async download(key, path, { ifNoneMatch } = {}) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: key, IfNoneMatch: ifNoneMatch }));
        await pipeline(out.Body as Readable, createWriteStream(path, { mode: 0o600 }));
        return { etag: out.ETag ?? '', bytes: out.ContentLength ?? 0 };
      } catch (error) {
        if (ifNoneMatch !== undefined && statusOf(error) === 304) return 'unchanged';
        if (isMissing(error)) return null;
        throw fail('read', key, error);
      }
    },
    async put(key, body, condition) {
      const guard = 'ifMatch' in condition ? { IfMatch: condition.ifMatch } : { IfNoneMatch: condition.ifNoneMatch };
      try {
        const out = await client.send(
          new PutObjectCommand({ Bucket, Key: key, Body: body, ContentType: 'application/octet-stream', ...guard }),
        );
        return out.ETag ?? '';
      } catch (error) {
        if (conditionFailed(error, condition)) return null;
        throw fail('write', key, error);
      }
    },
    async upload(key, path) {
      try {
        await uploadFile({ client, Bucket, Key: key, partSize: PART_SIZE, parallel: 2 }, path);
      } catch (error) {
        throw fail('write', key, error);
      }
    },
    async delete(key, condition) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: key, IfMatch: condition?.ifMatch }));
        return true;
      } catch (error) {
        if (condition && conditionFailed(error, condition)) return false;
        throw fail('delete', key, error);
      }
    },
    close: () => client.destroy(),
  };
}
