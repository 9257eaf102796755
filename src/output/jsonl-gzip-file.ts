import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, fdatasync, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { constants, createGzip, type Gzip } from 'node:zlib';
import { SinkError } from '../errors.js';

const datasync = promisify(fdatasync);

/**
 * How far a file being written is on disk: its first `bytes` bytes are a gzip
 * stream cut at a sync-flush point, which inflates (without a trailer) to
 * exactly the first `rows` lines. What recovery needs to finish the file.
 */
export interface FileMark {
  rows: number;
  bytes: number;
  uncompressedBytes: number;
  longestLine: number;
}

/** A spool file that is complete and on disk (fsync'd): safe to record and upload. */
export interface ClosedFile {
  path: string;
  rows: number;
  /** Compressed size: what the sink stores. */
  bytes: number;
  uncompressedBytes: number;
  sha256: string;
  /** Bytes of the longest line (without its newline): what a reader of the file must hold at once. */
  longestLine?: number;
}

export interface JsonlGzipFileOptions {
  /**
   * zlib level 1-9. @default 3 — levels 1-3 use zlib's fast deflate; on JSONL rows
   * level 3 compresses about three times faster than 6 for files about 8% larger,
   * which keeps gzip from being the pipeline's bottleneck (docs/output.md, "Files").
   */
  gzipLevel?: number;
  /** Lines are handed to zlib in chunks of about this many characters. @default 65536 */
  chunkChars?: number;
}

/**
 * One gzip JSONL file being written to the spool. Lines are batched into ~64 KiB
 * chunks before zlib (one stream write per chunk, not per row), writes wait for
 * zlib's backpressure, and close() finishes the gzip stream and fsyncs the file
 * before it counts as written. Memory stays at a few chunks whatever the size.
 */
export class JsonlGzipFile {
  rows = 0;
  uncompressedBytes = 0;
  private longestLine = 0;
  private compressedBytes = 0;
  private pending = '';
  private failure: unknown;
  private readonly hash: Hash = createHash('sha256');
  private readonly done: Promise<void>;

  private constructor(
    readonly path: string,
    private readonly out: WriteStream,
    private readonly gzip: Gzip,
    private readonly chunkChars: number,
    private readonly fd: number,
  ) {
    gzip.on('data', (chunk: Buffer) => {
      this.hash.update(chunk);
      this.compressedBytes += chunk.length;
    });
    this.done = pipeline(gzip, out);
    this.done.catch((error: unknown) => {
      this.failure ??= error;
    });
  }

  static async open(path: string, options: JsonlGzipFileOptions = {}): Promise<JsonlGzipFile> {
    // `flush: true` fsyncs the file before it is closed: the pipeline ends only then.
    const out = createWriteStream(path, { flags: 'wx', mode: 0o600, flush: true });
    const [fd] = (await once(out, 'open')) as [number];
    const gzip = createGzip({ level: options.gzipLevel ?? 3 });
    return new JsonlGzipFile(path, out, gzip, options.chunkChars ?? 65_536, fd);
  }

  /** Appends one line (without its newline). Returns a promise only when zlib needs time. */
  write(line: string, byteLength: number): Promise<void> | undefined {
    this.rows++;
    this.uncompressedBytes += byteLength + 1;
    if (byteLength > this.longestLine) this.longestLine = byteLength;
    this.pending += `${line}\n`;
    if (this.pending.length < this.chunkChars) return undefined;
    return this.flush();
  }

  private flush(): Promise<void> | undefined {
    if (this.failure) throw new SinkError(`could not write spool file ${this.path}`, { cause: this.failure });
    if (this.pending === '') return undefined;
    const ok = this.gzip.write(this.pending);
    this.pending = '';
    return ok ? undefined : this.waitDrain();
  }

  private async waitDrain(): Promise<void> {
    await Promise.race([once(this.gzip, 'drain'), this.done]);
  }

  /**
   * Makes every line written so far durable without finishing the file: a zlib
   * sync flush (byte-aligned, the dictionary kept, so compression barely
   * suffers), the flushed bytes written through, then fdatasync. Writing goes on
   * after it; the file's prefix up to the mark stays valid.
   */
  async mark(): Promise<FileMark> {
    try {
      await this.flush();
      await new Promise<void>((resolve) => this.gzip.flush(constants.Z_SYNC_FLUSH, () => resolve()));
      // The flushed output goes through the pipe to the file (fs writes on the thread pool): wait
      // until all of it is written, a millisecond at a time rather than spinning.
      while (
        this.gzip.readableLength > 0 ||
        this.out.writableLength > 0 ||
        this.out.bytesWritten < this.compressedBytes
      ) {
        if (this.failure) throw this.failure;
        await sleep(1);
      }
      await datasync(this.fd);
    } catch (error) {
      throw new SinkError(`could not mark spool file ${this.path}`, { cause: this.failure ?? error });
    }
    return {
      rows: this.rows,
      bytes: this.compressedBytes,
      uncompressedBytes: this.uncompressedBytes,
      longestLine: this.longestLine,
    };
  }

  /** Finishes the gzip stream, fsyncs and closes the file. */
  async close(): Promise<ClosedFile> {
    try {
      await this.flush();
      this.gzip.end();
      await this.done;
    } catch (error) {
      throw new SinkError(`could not finish spool file ${this.path}`, { cause: this.failure ?? error });
    }
    return {
      path: this.path,
      rows: this.rows,
      bytes: this.compressedBytes,
      uncompressedBytes: this.uncompressedBytes,
      sha256: this.hash.digest('hex'),
      longestLine: this.longestLine,
    };
  }

  /** Abandons the file: nothing of it is kept. */
  async discard(): Promise<void> {
    this.gzip.destroy();
    this.out.destroy();
    await this.done.catch(() => undefined);
    await rm(this.path, { force: true });
  }
}
