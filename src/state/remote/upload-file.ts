import { type FileHandle, open } from 'node:fs/promises';
import type { CompletedPart, S3Client } from '@aws-sdk/client-s3';
import { s3Sdk } from '../../output/sinks/s3-sdk.js';

/** Where a file goes, and how it is cut. */
export interface FileUpload {
  client: S3Client;
  Bucket: string;
  Key: string;
  /** One PutObject up to this size; above it, a multipart upload of parts this size. */
  partSize: number;
  /** Parts in flight at once; each has a buffer of its own, reused for every part it sends. */
  parallel: number;
}

/** Reads `length` bytes at `position` into the start of `buf` (the file must still hold them). */
async function readInto(file: FileHandle, buf: Buffer, position: number, length: number): Promise<Buffer> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await file.read(buf, done, length - done, position + done);
    if (bytesRead === 0) throw new Error(`the file ended at ${position + done} bytes while it was being sent`);
    done += bytesRead;
  }
  return buf.subarray(0, length);
}

/**
 * Sends the file's parts, `parallel` at a time, each read into its sender's
 * own buffer: what the upload holds in memory is `parallel × partSize`
 * whatever the file's size, and nothing is left for the garbage collector.
 * (A stream body given to lib-storage is read in 64 KiB chunks and
 * concatenated into a fresh buffer per part: garbage in proportion to the
 * file, which the process's peak RSS kept, growing with the state.)
 */
async function sendParts(o: FileUpload, file: FileHandle, size: number, UploadId: string): Promise<CompletedPart[]> {
  const { UploadPartCommand } = s3Sdk();
  const count = Math.ceil(size / o.partSize);
  const parts: CompletedPart[] = [];
  let next = 0;
  const failures: unknown[] = [];
  const sender = async () => {
    const buf = Buffer.allocUnsafe(o.partSize);
    for (let i = next++; i < count && failures.length === 0; i = next++) {
      const position = i * o.partSize;
      const body = await readInto(file, buf, position, Math.min(o.partSize, size - position));
      const out = await o.client.send(
        new UploadPartCommand({ Bucket: o.Bucket, Key: o.Key, UploadId, PartNumber: i + 1, Body: body }),
      );
      if (!out.ETag) throw new Error(`part ${i + 1} of ${o.Key} was stored without an ETag`);
      const { ETag, ChecksumCRC32, ChecksumCRC32C, ChecksumSHA1, ChecksumSHA256 } = out;
      parts.push({ PartNumber: i + 1, ETag, ChecksumCRC32, ChecksumCRC32C, ChecksumSHA1, ChecksumSHA256 });
    }
  };
  // On a failure the other senders finish the part they are sending and take no more: the
  // abort that follows then finds no part still under way.
  const senders = Array.from({ length: Math.min(o.parallel, count) }, () =>
    sender().catch((error: unknown) => void failures.push(error)),
  );
  await Promise.all(senders);
  if (failures.length > 0) throw failures[0];
  return parts.sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
}

/**
 * Uploads the file at `path` (a state's base or change file, which nothing
 * writes while it is sent): one PutObject when it fits one part, else a
 * multipart upload, aborted when a part or the completion fails. With the
 * SDK's default checksums (`when_supported`) the upload asks for CRC32 part
 * checksums, as lib-storage does.
 */
export async function uploadFile(o: FileUpload, path: string): Promise<void> {
  const sdk = s3Sdk();
  const { Bucket, Key, client } = o;
  const ContentType = 'application/octet-stream';
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    if (size <= o.partSize) {
      const Body = await readInto(file, Buffer.allocUnsafe(size), 0, size);
      await client.send(new sdk.PutObjectCommand({ Bucket, Key, Body, ContentType }));
      return;
    }
    const checksums = (await client.config.requestChecksumCalculation()) === 'WHEN_SUPPORTED';
    const { UploadId } = await client.send(
      new sdk.CreateMultipartUploadCommand({
        Bucket,
        Key,
        ContentType,
        ...(checksums ? { ChecksumAlgorithm: sdk.ChecksumAlgorithm.CRC32 } : {}),
      }),
    );
    if (!UploadId) throw new Error(`no upload id for ${Key}`);
    try {
      const Parts = await sendParts(o, file, size, UploadId);
      await client.send(new sdk.CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts } }));
    } catch (error) {
      await client.send(new sdk.AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => undefined);
      throw error;
    }
  } finally {
    await file.close();
  }
}
