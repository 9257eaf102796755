import type { ApiObject } from '../api/index.js';
import { describeEndpoint } from '../catalog/stream-definition.js';
import { recordKey } from '../output/rows/record-key.js';
import { isForbidden } from '../streams/api-error-status.js';
import { committedCount } from '../streams/committed.js';
import type { FullRefreshDefinition } from '../streams/full-refresh/full-refresh-stream.js';
import { perInboxItems } from '../streams/full-refresh/per-inbox-items.js';
import { RefreshDiff } from '../streams/full-refresh/refresh-diff.js';
import { listInboxIds } from '../streams/inbox-ids.js';
import { declaredInRunOrder } from '../streams/registry.js';
import { FindingTally, type SubjectCounts, type VerifyContext } from './verify-types.js';

/** The streams verify lists again: declared `verify: 'listing'` (the full-refresh lists), in run order. */
function listed(): FullRefreshDefinition[] {
  return declaredInRunOrder().filter(
    (d): d is FullRefreshDefinition =>
      d.verify === 'listing' && (d.read.kind === 'list' || d.read.kind === 'per-inbox'),
  );
}

/** What reading the listed streams again costs: one request a list, one per inbox for a list per inbox. */
export function listingRequests(heldInboxes: number): number {
  return listed().reduce((n, d) => n + (d.read.kind === 'per-inbox' ? heldInboxes : 1), 0);
}

/**
 * The full-refresh lists have no change time: any difference with the state
 * is taken as a change since the last sync (every sync reads them whole and
 * writes what differs), so it is reported, explained.
 */
function compare(
  ctx: VerifyContext,
  definition: FullRefreshDefinition,
  records: Iterable<ApiObject>,
): { counts: SubjectCounts; tally: FindingTally } {
  const { name } = definition;
  const table = definition.tables[0].name;
  const scope = definition.state.scope;
  const keyOf = recordKey(table);
  const tally = new FindingTally(name);
  const diff = new RefreshDiff(table, scope, ctx.state, false);
  let listedCount = 0;
  const note = 'a full-refresh list differs from the last sync; the next sync writes it';
  for (const record of records) {
    listedCount += 1;
    const id = keyOf(record);
    if (id === undefined) {
      tally.add('rejected', '(no id)', true, 'listed without an id: a rejected row, never in state');
      continue;
    }
    const held = ctx.state.get(scope, id) !== undefined;
    if (diff.observe(record)) tally.add(held ? 'changed_since_last_sync' : 'new_since_last_sync', id, true, note);
  }
  for (const emit of diff.tombstones()) {
    if (emit.kind === 'row') tally.add('gone_since_last_sync', String(Object.values(emit.record)[0]), true, note);
  }
  return { counts: { subject: name, api: listedCount, state: committedCount(ctx.state, scope) }, tally };
}

async function collect(items: AsyncIterable<ApiObject>): Promise<ApiObject[]> {
  const out: ApiObject[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * A stream's listing as a sync reads it, and the requests it took: one for a
 * whole list, one per inbox for a list per inbox (the inbox list itself is read
 * once: the api verify reads through keeps it).
 */
async function listing(ctx: VerifyContext, definition: FullRefreshDefinition) {
  const { endpoint } = definition.read;
  if (definition.read.kind === 'list') return { records: await collect(ctx.api.read(endpoint)), requests: 1 };
  const ids = await listInboxIds(ctx.api);
  return { records: await collect(perInboxItems(ctx.api, endpoint, ids)), requests: ids.length };
}

/**
 * The full-refresh lists (the dimension lists, the tags of every inbox) against
 * the state: one request per list, one per inbox for the tags. A stream whose
 * declaration skips it on a 403 (users without users:read) is reported not
 * readable, explained.
 */
export async function verifyDimensions(
  ctx: VerifyContext,
): Promise<{ counts: SubjectCounts[]; tallies: FindingTally[]; requests: number }> {
  const results: Array<{ counts: SubjectCounts; tally: FindingTally }> = [];
  const unreadable: FindingTally[] = [];
  let requests = 0;
  for (const definition of listed()) {
    let read: { records: ApiObject[]; requests: number };
    try {
      read = await listing(ctx, definition);
    } catch (error) {
      if (!(definition.forbidden.effect === 'skip' && isForbidden(error))) throw error;
      const skipped = new FindingTally(definition.name);
      const why = definition.forbidden.why ?? 'the token may not read it';
      const endpoint = describeEndpoint(definition.read.endpoint);
      skipped.addCount('not_readable', 1, true, `${endpoint} answered 403 (${why})`);
      unreadable.push(skipped);
      requests += 1;
      continue;
    }
    results.push(compare(ctx, definition, read.records));
    requests += read.requests;
  }
  return { counts: results.map((r) => r.counts), tallies: [...results.map((r) => r.tally), ...unreadable], requests };
}
