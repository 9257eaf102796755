import { buffer } from 'node:stream/consumers';
import { gunzipSync } from 'node:zlib';
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
  for (const file of files) {
    const table = file.table_name as TableName;
    if (!(table in TABLES)) continue;
    let map = latest.get(table);
    if (!map) {
      map = scratch.map(`verify-output-${table}`);
      latest.set(table, map);
    }
    const text = gunzipSync(await buffer(await sink.read(file.key))).toString('utf8');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const row = JSON.parse(line) as Row;
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
  return { latest, kept, files: files.length };
}
