import type { Readable } from 'node:stream';
import { fileFormatOf } from '../object-keys.js';

/** What a sink is told about a file it stores. */
export interface PutMeta {
  /** Hex sha256 of the file's bytes, stored beside the object so head() can verify it. */
  sha256: string;
  bytes: number;
  contentType: string;
}

export interface HeadResult {
  bytes: number;
  /** Present when the sink can tell it cheaply (local file, S3 object metadata). */
  sha256?: string;
}

/**
 * Where output files land (docs/output.md). Keys are relative to the configured
 * prefix and use `/`. Every write is all-or-nothing: a key either holds the whole
 * file or does not exist, so nothing half-written is ever listed or loaded.
 */
export interface Sink {
  /** Stores a local file under `key`, replacing any object already there. */
  put(key: string, localPath: string, meta: PutMeta): Promise<void>;
  /** Stores a small body (a manifest) under `key`. */
  putBytes(key: string, body: Uint8Array | string, contentType: string): Promise<void>;
  /** Size (and sha256 when cheap) of a stored object, or null when absent. */
  head(key: string): Promise<HeadResult | null>;
  /** The bytes stored under `key`, as a stream (load and `verify --output` read files back); a SinkError when absent. */
  read(key: string): Promise<Readable>;
  /** Removes an object; absent objects are not an error. */
  delete(key: string): Promise<void>;
  /** Keys starting with `prefix` (relative to the sink's own prefix), in no particular order. */
  list(prefix: string): AsyncIterable<string>;
  /** Where this sink writes, for logs and manifests (never contains credentials). */
  describe(): string;
  /** The file behind a key, for a sink that keeps files on this machine (so a loader can read it in place). */
  localPath?(key: string): string;
}

/** A named point in a write where tests may stop the process (crash tests). */
export type FaultPoint = (label: string) => void | Promise<void>;

export const GZIP_JSONL = 'application/gzip';
/** The media type registered for Parquet files. */
export const PARQUET = 'application/vnd.apache.parquet';
export const JSON_CONTENT = 'application/json';

/** The media type a data or rejected file is stored with, by its key's ending. */
export function contentTypeOf(key: string): string {
  return fileFormatOf(key) === 'parquet' ? PARQUET : GZIP_JSONL;
}
