import type { ApiObject } from '../api/index.js';
import { canonicalJson } from '../canonical-json.js';
import { normalizeRecord } from '../output/normalize/normalize-record.js';
import type { TableName } from '../output/tables.js';
import { isForbidden } from '../streams/api-error-status.js';
import { viewFields, withoutUrlQueries } from '../streams/conversations/conversation-fingerprints.js';
import { threadRecords } from '../streams/conversations/thread-records.js';
import type { SampledConversation } from './verify-conversations.js';
import { FindingTally, type VerifyContext } from './verify-types.js';

type Row = Record<string, unknown>;

/** Columns a sync writes per run or per account, not from the API: never compared. */
const RUN_COLUMNS = new Set(['_synced_at', '_run_id', '_deleted', '_account']);

/** The columns in which `row` differs from what the sync would write for `record` now. */
function differingColumns(ctx: VerifyContext, table: TableName, record: ApiObject, row: Row): string[] {
  const want = normalizeRecord(table, record, { runId: '', syncedAt: '', account: '' });
  if (!want.ok) return ['(not a valid row)'];
  // Signed URLs are re-signed on every read: only the part before `?` counts (as for the fingerprints).
  const signed = viewFields(ctx.conversations).signedUrls;
  const same = (a: unknown, b: unknown) =>
    canonicalJson(withoutUrlQueries(a ?? null, signed)) === canonicalJson(withoutUrlQueries(b ?? null, signed));
  return Object.keys(want.row).filter((column) => !RUN_COLUMNS.has(column) && !same(want.row[column], row[column]));
}

/**
 * The sampled conversations, field by field: the list item against its latest
 * conversations row, then its thread (one `GET …/messages` each) against the
 * latest thread rows: a row missing, a row that differs, or a live row the
 * thread no longer has. A conversation that changed since the last sync is
 * skipped (its rows are the next sync's to rewrite).
 */
export async function verifySample(
  ctx: VerifyContext,
  sample: readonly SampledConversation[],
  kept: ReadonlyMap<string, Row>,
): Promise<{ tally: FindingTally; requests: number; compared: number }> {
  const tally = new FindingTally('sample');
  let requests = 0;
  let compared = 0;
  for (const { item, changed } of sample) {
    const id = String(item.id);
    if (changed) continue;
    compared += 1;
    const row = kept.get(`conversations|${id}`);
    const fields = row ? differingColumns(ctx, 'conversations', item, row) : [];
    if (fields.length > 0)
      tally.add('row_differs', `${id} (${fields.join(', ')})`, false, 'the latest row differs from the API');
    requests += 1;
    let events: ApiObject[] | null;
    try {
      events = await ctx.api.listThreadEvents(id);
    } catch (error) {
      if (!isForbidden(error)) throw error;
      tally.add('thread_not_readable', id, true, 'its thread answers 403; the sync skips it too');
      continue;
    }
    if (events === null) {
      tally.add('deleted_since_last_sync', id, true, 'its thread answers 404; the next sync confirms the deletion');
      continue;
    }
    const keys = new Set<string>();
    for (const record of threadRecords(id, events)) {
      if (record.key === undefined) continue;
      keys.add(`${record.table}|${record.key}`);
      const latest = kept.get(`${record.table}|${record.key}`);
      if (!latest || latest._deleted === true) {
        tally.add('thread_row_missing', `${record.table} ${record.key}`, false, 'in the thread, no live row');
        continue;
      }
      const differs = differingColumns(ctx, record.table, record.record, latest);
      if (differs.length > 0)
        tally.add(
          'row_differs',
          `${record.table} ${record.key} (${differs.join(', ')})`,
          false,
          'the latest row differs',
        );
    }
    for (const [key, latest] of kept) {
      if (latest.conversation_id !== id || latest._deleted === true || key.startsWith('conversations|')) continue;
      if (!keys.has(key))
        tally.add('thread_row_extra', key.replace('|', ' '), false, 'a live row the thread no longer has');
    }
  }
  return { tally, requests, compared };
}
