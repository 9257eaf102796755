import { open, rm, stat } from 'node:fs/promises';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type LoadDuckdbApi, loadDuckdbApi } from '../../duckdb-api.js';
import { SinkError } from '../../errors.js';
import { fileSha256 } from '../file-sha256.js';
import type { ClosedFile } from '../jsonl-gzip-file.js';
import type { FaultPoint } from '../sinks/sink.js';
import type { TableName } from '../tables.js';
import { jsonColumnsStruct, jsonLineSelect } from './parquet-columns.js';

export interface ParquetEngineOptions {
  /** Rows per row group: what a reader (and the engine while writing) holds of one column at a time. @default 10000 */
  rowGroupRows?: number;
  /** The engine's memory cap while converting. @default '128MB' */
  memoryLimit?: string;
  importEngine?: LoadDuckdbApi;
  /** Named point where crash tests stop the process: `parquet-written` (the file written, not yet fsynced). */
  faultPoint?: FaultPoint;
}

/** Turns a closed spool file of gzip JSONL into the Parquet file that is committed in its place, and back. */
export interface ParquetEngine {
  /** Converts `file` (gzip JSONL of `table`) into `<path without .jsonl.gz>.parquet`, fsynced; removes the JSONL. */
  convert(file: ClosedFile, table: TableName): Promise<ClosedFile>;
  /**
   * The rows of a Parquet output file of `table` as the JSON lines its JSONL would
   * hold (same keys in the same order, timestamps `…T10:15:00.123Z` or with
   * microseconds): what a line reader (PostgreSQL's COPY, verify) takes.
   */
  lines(path: string, table: TableName): AsyncIterable<string>;
  close(): Promise<void>;
}

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The reader's buffer for one line: DuckDB allocates twice `maximum_object_size`
 * up front, so it follows the file's longest line (a long message body) rather
 * than a fixed maximum, never below its default of 16 MiB.
 */
const objectBytes = (file: ClosedFile) => Math.max(16 * 1024 * 1024, (file.longestLine ?? 0) + 1);

async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The Parquet writer: DuckDB, the engine `load` already uses, reading the spool's
 * gzip JSONL with each column's type from the row specs and writing it as Parquet
 * (zstd, bounded row groups). The JSONL path stays the one writer of rows, so the
 * Parquet file holds exactly the JSONL's rows, in order (docs/output.md,
 * "Parquet"). One in-memory engine per output session, on one thread, with a
 * memory cap, converting one file at a time; opened at the first file.
 */
export function createParquetEngine(options: ParquetEngineOptions = {}): ParquetEngine {
  const rowGroupRows = options.rowGroupRows ?? 10_000;
  const importEngine = options.importEngine ?? loadDuckdbApi;
  const fault = options.faultPoint ?? (() => undefined);
  let opened: Promise<{ instance: DuckDBInstance; db: DuckDBConnection }> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const connect = async () => {
    const { DuckDBInstance } = await importEngine();
    const instance = await DuckDBInstance.create(':memory:', {
      threads: '1',
      memory_limit: options.memoryLimit ?? '128MB',
      preserve_insertion_order: 'true',
      // DuckDB's allocator keeps up to 128 MB of freed memory by default: with 8 MB the
      // sync's peak RSS stays under its 256 MB target (npm run bench -- output).
      allocator_flush_threshold: '8MB',
      allocator_bulk_deallocation_flush_threshold: '8MB',
    });
    return { instance, db: await instance.connect() };
  };

  async function convertNow(file: ClosedFile, table: TableName): Promise<ClosedFile> {
    const target = file.path.replace(/\.jsonl\.gz$/, '.parquet');
    try {
      opened ??= connect();
      const { db } = await opened;
      const read =
        `read_json(${quote(file.path)}, format = 'newline_delimited', hive_partitioning = false, ` +
        `maximum_object_size = ${objectBytes(file)}, columns = ${jsonColumnsStruct(table)})`;
      await db.run(
        `COPY (SELECT * FROM ${read}) TO ${quote(target)} ` +
          `(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupRows})`,
      );
      await fault('parquet-written');
      await fsyncFile(target);
      const bytes = (await stat(target)).size;
      const sha256 = await fileSha256(target);
      await rm(file.path, { force: true });
      return { path: target, rows: file.rows, bytes, uncompressedBytes: file.uncompressedBytes, sha256 };
    } catch (error) {
      await rm(target, { force: true }).catch(() => undefined);
      throw new SinkError(`could not write Parquet spool file ${target}: ${(error as Error)?.message ?? error}`, {
        cause: error,
      });
    }
  }

  return {
    convert(file, table) {
      // One conversion at a time: the engine's memory cap holds for the session, not per file.
      const next = queue.then(() => convertNow(file, table));
      queue = next.catch(() => undefined);
      return next;
    },
    async *lines(path, table) {
      opened ??= connect();
      const { db } = await opened;
      const select = `SELECT to_json(t)::VARCHAR FROM (${jsonLineSelect(table, `read_parquet(${quote(path)}, hive_partitioning = false)`)}) t`;
      const result = await db.stream(select);
      for await (const rows of result.yieldRows()) for (const [line] of rows) yield String(line);
    },
    async close() {
      await queue;
      if (!opened) return;
      const engine = await opened.catch(() => undefined);
      opened = undefined;
      engine?.db.closeSync();
      engine?.instance.closeSync();
    },
  };
}
