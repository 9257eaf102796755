import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { gunzipSync } from 'node:zlib';
import { parseJsonExact } from '../exact-json/parse-json-exact.js';
import { fileFormatOf } from '../output/object-keys.js';
import { createParquetEngine, type ParquetEngine } from '../output/parquet/parquet-engine.js';
import type { Sink } from '../output/sinks/sink.js';
import { TABLES, type TableName } from '../output/tables.js';
import type { ScratchMap, ScratchSpace } from '../scratch-space.js';
import type { CommittedFile } from '../state/state-admin.js';

type Row = Record<string, unknown>;

/** A row's primary key as one string (`inbox_id|date` for report days). */
export function rowKey(table: TableName, row: Row): string {
  return TABLES[table].map((column) => String(row[column])).join('|');
}

/** What the committed files hold: per table, key → latest `_synced_at` and whether that row is a tombstone. */
export interface OutputKeys {
  /** Per table, key → `<_synced_at>\t<1 for a tombstone, else 0>` of the latest row. */
  latest: Map<TableName, ScratchMap>;
  /** Latest full rows kept for the sample, by `table|key` (a key whose latest row is not kept is absent). */
  kept: Map<string, Row>;
  files: number;
}

/** Live: the latest row of the key is not a tombstone. */
export function isLive(value: string | undefined): boolean {
  return value?.endsWith('\t0') === true;
}

/** A committed file's lines: gzip JSONL as stored, Parquet read back as the same JSON lines (via a local copy). */
async function fileLines(sink: Sink, key: string, table: TableName, parquet: () => ParquetEngine): Promise<string[]> {
  const bytes = await buffer(await sink.read(key));
  if (fileFormatOf(key) === 'jsonl') return gunzipSync(bytes).toString('utf8').split('\n');
  const dir = await mkdtemp(join(tmpdir(), 'helpdesk-verify-'));
  try {
    const path = join(dir, 'file.parquet');
    await writeFile(path, bytes, { mode: 0o600 });
    const lines: string[] = [];
    for await (const line of parquet().lines(path, table)) lines.push(line);
    return lines;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Reads every committed data file back from the destination (oldest run
 * first) and keeps, per key, only what a warehouse merge keeps: the latest row
 * by `_synced_at`, a later file winning a tie. The key sets live in scratch
 * (off the heap); full rows are kept only where `keep` says (the sample).
 */
export async function readOutputKeys(
  sink: Sink,
  files: readonly CommittedFile[],
  scratch: ScratchSpace,
  keep: (table: TableName, row: Row) => boolean,
): Promise<OutputKeys> {
  const latest = new Map<TableName, ScratchMap>();
  const kept = new Map<string, Row>();
  let engine: ParquetEngine | undefined;
  const parquet = () => {
    engine ??= createParquetEngine();
    return engine;
  };
  try {
    await readAll();
  } finally {
    await engine?.close();
  }
  return { latest, kept, files: files.length };

  async function readAll(): Promise<void> {
    for (const file of files) {
      const table = file.table_name as TableName;
      if (!(table in TABLES)) continue;
      let map = latest.get(table);
      if (!map) {
        map = scratch.map(`verify-output-${table}`);
        latest.set(table, map);
      }
      for (const line of await fileLines(sink, file.key, table, parquet)) {
        if (line === '') continue;
        // Exact: a kept row is compared field by field with the API's (verify-sample.ts), integers beyond 2^53 too.
        const row = parseJsonExact(line) as Row;
        const key = rowKey(table, row);
        const syncedAt = String(row._synced_at);
        const before = map.get(key);
        if (before !== undefined && before.slice(0, before.indexOf('\t')) > syncedAt) continue;
        map.set(key, `${syncedAt}\t${row._deleted === true ? 1 : 0}`);
        // A later tombstone (primary key only) replaces a kept row: kept rows are always the latest.
        if (keep(table, row)) kept.set(`${table}|${key}`, row);
        else kept.delete(`${table}|${key}`);
      }
    }
  }
}
