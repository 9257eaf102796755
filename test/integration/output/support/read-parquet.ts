import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

/**
 * Every row of a Parquet file, read by hyparquet (pure JS, no code shared with
 * the DuckDB engine that wrote it). Timestamps are kept as microseconds since
 * the epoch (bigint): the default parser would make millisecond Dates.
 */
export async function readParquet(path: string): Promise<Record<string, unknown>[]> {
  const file = await asyncBufferFromFile(path);
  return parquetReadObjects({ file, compressors, parsers: { timestampFromMicroseconds: (v) => v } });
}

/** The rows of an output data file of either format (`.jsonl.gz` or `.parquet`). */
export async function readOutputFile(path: string): Promise<Record<string, unknown>[]> {
  if (path.endsWith('.parquet')) return readParquet(path);
  const { readJsonlGz } = await import('./read-jsonl-gz.js');
  return readJsonlGz(path);
}
