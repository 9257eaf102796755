import { rm } from 'node:fs/promises';
import { InvalidOptionError } from '../errors.js';
import { type ClosedFile, JsonlGzipFile } from './jsonl-gzip-file.js';
import type { TableName } from './tables.js';

export type FileKind = 'data' | 'rejected';

/** A closed spool file and where it goes in the sink. */
export interface WrittenFile extends ClosedFile {
  key: string;
  table: TableName;
  kind: FileKind;
}

export interface BatchWriterOptions {
  table: TableName;
  kind: FileKind;
  /** Rotate after this many rows. */
  maxRecordsPerFile: number;
  /** Rotate before a row would take the file past this many uncompressed bytes. */
  maxBytesPerFile: number;
  /** Names the next file: its sink key and its spool path. */
  allocate: () => { key: string; path: string };
  gzipLevel?: number;
  /**
   * What a closed spool file becomes before it is handed over, e.g. its Parquet
   * conversion (parquet/parquet-engine.ts); the result replaces it. @default none
   */
  finish?: (file: ClosedFile) => Promise<ClosedFile>;
}

/**
 * Streams one table's rows into gzip JSONL spool files, rotating at
 * max_records_per_file / max_bytes_per_file (docs/output.md). A file being closed
 * (gzip end + fsync) overlaps with writing the next one. takeClosed() closes the
 * open file and hands over every file finished since the last call: that is what
 * a checkpoint commits.
 */
export class BatchWriter {
  private file: JsonlGzipFile | undefined;
  private key = '';
  private opening: Promise<void> | undefined;
  private closing: Promise<WrittenFile>[] = [];

  constructor(private readonly options: BatchWriterOptions) {
    if (!(options.maxRecordsPerFile >= 1 && options.maxBytesPerFile >= 1)) {
      throw new InvalidOptionError('Expected `maxRecordsPerFile` and `maxBytesPerFile` to be numbers from 1 and up');
    }
  }

  /** Appends one JSON line; returns a promise only when the caller must wait (rotation, zlib backpressure). */
  write(line: string): Promise<void> | undefined {
    const length = Buffer.byteLength(line);
    const file = this.file;
    if (file && !this.full(file, length)) return file.write(line, length);
    return this.writeRotating(line, length);
  }

  private full(file: JsonlGzipFile, length: number): boolean {
    if (file.rows >= this.options.maxRecordsPerFile) return true;
    return file.rows > 0 && file.uncompressedBytes + length + 1 > this.options.maxBytesPerFile;
  }

  private async writeRotating(line: string, length: number): Promise<void> {
    while (this.opening) await this.opening;
    if (this.file && this.full(this.file, length)) this.closeOpen();
    if (!this.file) {
      this.opening = this.openNext();
      try {
        await this.opening;
      } finally {
        this.opening = undefined;
      }
    }
    await this.file!.write(line, length);
  }

  private async openNext(): Promise<void> {
    const { key, path } = this.options.allocate();
    this.file = await JsonlGzipFile.open(path, { gzipLevel: this.options.gzipLevel });
    this.key = key;
  }

  private closeOpen(): void {
    const file = this.file;
    if (!file) return;
    const { table, kind } = this.options;
    const key = this.key;
    this.file = undefined;
    const finish = this.options.finish;
    const closed = file
      .close()
      .then((c) => (finish ? finish(c) : c))
      .then((c): WrittenFile => ({ ...c, key, table, kind }));
    closed.catch(() => undefined); // surfaced by takeClosed()
    this.closing.push(closed);
  }

  /** Rows in the open file (not yet handed over). */
  get openRows(): number {
    return this.file?.rows ?? 0;
  }

  /** Closes the open file and returns every file finished since the last call. */
  async takeClosed(): Promise<WrittenFile[]> {
    while (this.opening) await this.opening;
    this.closeOpen();
    const closing = this.closing;
    this.closing = [];
    return Promise.all(closing);
  }

  /** Drops the open file and any closed but not taken: their rows are not committed. */
  async discard(): Promise<void> {
    while (this.opening) await this.opening.catch(() => undefined);
    const file = this.file;
    this.file = undefined;
    const closing = this.closing;
    this.closing = [];
    await file?.discard();
    for (const settled of await Promise.allSettled(closing)) {
      if (settled.status === 'fulfilled') await rm(settled.value.path, { force: true });
    }
  }
}
