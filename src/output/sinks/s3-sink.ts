import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { SinkError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { withPrefix } from '../object-keys.js';
import { type RetryOptions, retryUpload } from './retry-upload.js';
import { createS3Client, type S3ConnectionOptions } from './s3-client.js';
import { s3Sdk, s3Storage } from './s3-sdk.js';
import type { HeadResult, PutMeta, Sink } from './sink.js';

/** lib-storage part size: objects up to this size go in one PutObject, larger ones multipart. */
export const PART_SIZE = 8 * 1024 * 1024;

export interface S3SinkOptions extends S3ConnectionOptions {
  bucket: string;
  prefix: string;
  retry?: RetryOptions;
  logger: Logger;
  /** Extra client settings (tests: request handlers, middleware). Credentials come from the AWS provider chain. */
  clientConfig?: Partial<S3ClientConfig>;
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * S3 (or S3-compatible) sink. Uploads go through lib-storage: one PutObject up to
 * 8 MiB, multipart above, two parts in flight. The file's sha256 is stored as
 * object metadata (`x-amz-meta-sha256`) so recovery can verify an object with a
 * HEAD request. Credentials come from the standard AWS provider chain (env,
 * shared config, SSO, web identity, instance/container roles); none is ever logged.
 */
export function createS3Sink(options: S3SinkOptions): Sink {
  const {
    AbortMultipartUploadCommand,
    DeleteObjectCommand,
    GetObjectCommand,
    HeadObjectCommand,
    PutObjectCommand,
    paginateListObjectsV2,
  } = s3Sdk();
  const { Upload } = s3Storage();
  const client = createS3Client(options, options.clientConfig);
  const Bucket = options.bucket;
  const full = (key: string) => withPrefix(options.prefix, key);
  const where = `s3://${Bucket}/${withPrefix(options.prefix, '')}`;
  const fail = (what: string, key: string, error: unknown) =>
    new SinkError(`could not ${what} ${where}${key}: ${(error as Error)?.message ?? error}`, { cause: error });

  /**
   * One lib-storage upload. Parts of a failed multipart upload are aborted here,
   * best effort, so that a server refusing the abort cannot hide the real error.
   */
  async function uploadOnce(key: string, localPath: string, meta: PutMeta): Promise<void> {
    const upload = new Upload({
      client,
      params: {
        Bucket,
        Key: full(key),
        Body: createReadStream(localPath),
        ContentType: meta.contentType,
        Metadata: { sha256: meta.sha256 },
      },
      partSize: PART_SIZE,
      queueSize: 2,
      leavePartsOnError: true,
    });
    try {
      await upload.done();
    } catch (error) {
      if (upload.uploadId) {
        const abort = new AbortMultipartUploadCommand({ Bucket, Key: full(key), UploadId: upload.uploadId });
        await client.send(abort).catch((abortError: unknown) => {
          options.logger.warn({ err: abortError, key: full(key) }, 'could not abort a failed multipart upload');
        });
      }
      throw error;
    }
  }

  return {
    async put(key: string, localPath: string, meta: PutMeta): Promise<void> {
      try {
        await retryUpload(full(key), () => uploadOnce(key, localPath, meta), options.logger, options.retry);
      } catch (error) {
        throw fail('upload', key, error);
      }
    },
    async putBytes(key: string, body: Uint8Array | string, contentType: string): Promise<void> {
      try {
        await retryUpload(
          full(key),
          () => client.send(new PutObjectCommand({ Bucket, Key: full(key), Body: body, ContentType: contentType })),
          options.logger,
          options.retry,
        );
      } catch (error) {
        throw fail('upload', key, error);
      }
    },
    async head(key: string): Promise<HeadResult | null> {
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket, Key: full(key) }));
        return { bytes: out.ContentLength ?? 0, sha256: out.Metadata?.sha256 };
      } catch (error) {
        if (isNotFound(error)) return null;
        throw fail('read', key, error);
      }
    },
    async read(key: string): Promise<Readable> {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: full(key) }));
        if (out.Body instanceof Readable) return out.Body;
        throw new SinkError('the S3 client returned no readable body');
      } catch (error) {
        throw fail('read', key, error);
      }
    },
    async delete(key: string): Promise<void> {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: full(key) }));
      } catch (error) {
        if (!isNotFound(error)) throw fail('delete', key, error);
      }
    },
    async *list(prefix: string): AsyncIterable<string> {
      const base = withPrefix(options.prefix, '');
      try {
        for await (const page of paginateListObjectsV2({ client }, { Bucket, Prefix: base + prefix })) {
          for (const object of page.Contents ?? []) if (object.Key) yield object.Key.slice(base.length);
        }
      } catch (error) {
        throw fail('list', prefix, error);
      }
    },
    describe: () => where,
  };
}
