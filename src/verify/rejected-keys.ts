import { buffer } from 'node:stream/consumers';
import { gunzipSync } from 'node:zlib';
import { parseJsonExact } from '../exact-json/parse-json-exact.js';
import { recordKey } from '../output/rows/record-key.js';
import type { Sink } from '../output/sinks/sink.js';
import { TABLES, type TableName } from '../output/tables.js';
import type { CommittedFile } from '../state/state-admin.js';

/**
 * The keys of the records the committed `_rejected/` files hold, per table. A
 * record with a key can be rejected (an integer its column's type cannot hold:
 * docs/output.md, "Rejected rows") while its stream holds the key in the state,
 * so the key has no live row for a reason the sync reported: verify-output.ts
 * tells it apart from a row lost. Rejected records are few, and gzip JSONL
 * whatever the output format.
 */
export async function readRejectedKeys(
  sink: Sink,
  files: readonly CommittedFile[],
): Promise<Map<TableName, Set<string>>> {
  const keys = new Map<TableName, Set<string>>();
  for (const file of files) {
    const table = file.table_name as TableName;
    if (!(table in TABLES)) continue;
    const keyOf = recordKey(table);
    const text = gunzipSync(await buffer(await sink.read(file.key))).toString('utf8');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const key = keyOf((parseJsonExact(line) as { raw?: unknown }).raw);
      if (key === undefined) continue;
      const set = keys.get(table) ?? new Set<string>();
      keys.set(table, set.add(key));
    }
  }
  return keys;
}
