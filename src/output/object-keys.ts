import type { TableName } from './tables.js';

/** The file formats of data files (`destination.format`); rejected records are always gzip JSONL. */
export const OUTPUT_FORMATS = ['jsonl', 'parquet'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The file name ending of each format: what a glob, a loader and the sink's content type go by. */
export const FILE_EXTENSIONS: Readonly<Record<OutputFormat, string>> = { jsonl: '.jsonl.gz', parquet: '.parquet' };

/** A file's format, told by its key's ending (manifest keys, listed keys). */
export function fileFormatOf(key: string): OutputFormat {
  return key.endsWith(FILE_EXTENSIONS.parquet) ? 'parquet' : 'jsonl';
}

/**
 * The one key layout of every sink (docs/output.md), relative to the configured prefix:
 *   <table>/dt=<YYYY-MM-DD>/<run_id>-<seq>.jsonl.gz      data files (`.parquet` with destination.format: parquet)
 *   _rejected/<table>/dt=<YYYY-MM-DD>/<run_id>-<seq>.jsonl.gz
 *   _manifests/<run_id>.json
 * dt is the run's start date (UTC), so one run's files share a partition and a
 * re-run of a day never rewrites an older partition. seq is unique per run across
 * tables, zero-padded to four digits (it grows past 9999 rather than wrapping).
 */
export function partitionDate(startedAt: Date): string {
  return startedAt.toISOString().slice(0, 10);
}

function fileName(runId: string, seq: number, format: OutputFormat = 'jsonl'): string {
  return `${runId}-${String(seq).padStart(4, '0')}${FILE_EXTENSIONS[format]}`;
}

export function dataFileKey(
  table: TableName,
  startedAt: Date,
  runId: string,
  seq: number,
  format: OutputFormat = 'jsonl',
): string {
  return `${table}/dt=${partitionDate(startedAt)}/${fileName(runId, seq, format)}`;
}

export function rejectedFileKey(table: TableName, startedAt: Date, runId: string, seq: number): string {
  return `_rejected/${table}/dt=${partitionDate(startedAt)}/${fileName(runId, seq)}`;
}

export function manifestKey(runId: string): string {
  return `_manifests/${runId}.json`;
}

/** Joins a configured prefix and a key; the prefix may have leading/trailing slashes. */
export function withPrefix(prefix: string, key: string): string {
  const clean = prefix.replace(/^\/+|\/+$/g, '');
  return clean ? `${clean}/${key}` : key;
}
