import type { ApiObject } from '../api/index.js';
import type { StreamName } from '../config/schema.js';
import type { TableName } from '../output/tables.js';
import { isForbidden, isNotFound } from '../streams/api-error-status.js';
import { committedCount } from '../streams/conversations/committed.js';
import { idOf } from '../streams/id-of.js';
import { RefreshDiff } from '../streams/refresh-diff.js';
import { SCOPES } from '../streams/scopes.js';
import { FindingTally, type SubjectCounts, type VerifyContext } from './verify-types.js';

type Dimension = Extract<StreamName, TableName> & keyof typeof SCOPES;

/**
 * The full-refresh lists have no change time: any difference with the state
 * is taken as a change since the last sync (every sync reads them whole and
 * writes what differs), so it is reported, explained.
 */
function compare(
  ctx: VerifyContext,
  name: Dimension,
  records: Iterable<ApiObject>,
): { counts: SubjectCounts; tally: FindingTally } {
  const tally = new FindingTally(name);
  const diff = new RefreshDiff(name, SCOPES[name], ctx.state, false);
  let listed = 0;
  const note = 'a full-refresh list differs from the last sync; the next sync writes it';
  for (const record of records) {
    listed += 1;
    const id = idOf(record);
    if (id === undefined) {
      tally.add('rejected', '(no id)', true, 'listed without an id: a rejected row, never in state');
      continue;
    }
    const held = ctx.state.get(SCOPES[name], id) !== undefined;
    if (diff.observe(record)) tally.add(held ? 'changed_since_last_sync' : 'new_since_last_sync', id, true, note);
  }
  for (const emit of diff.tombstones()) {
    if (emit.kind === 'row') tally.add('gone_since_last_sync', String(emit.record.id), true, note);
  }
  return { counts: { subject: name, api: listed, state: committedCount(ctx.state, SCOPES[name]) }, tally };
}

async function collect(items: AsyncIterable<ApiObject> | Promise<ApiObject[]>): Promise<ApiObject[]> {
  if (!(Symbol.asyncIterator in items)) return items;
  const out: ApiObject[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Tags of every inbox the API lists, each row under the first inbox that lists it (as the tags stream keys them). */
async function allTags(ctx: VerifyContext, inboxes: ApiObject[]): Promise<{ tags: ApiObject[]; requests: number }> {
  const tags: ApiObject[] = [];
  let requests = 0;
  for (const inbox of inboxes) {
    const inboxId = idOf(inbox);
    if (inboxId === undefined) continue;
    requests += 1;
    try {
      for (const tag of await collect(ctx.api.listInboxTags(inboxId))) tags.push({ ...tag, inbox_id: inboxId });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return { tags, requests };
}

/**
 * The dimension lists (inboxes, users, business hours, holidays) and the tags
 * of every inbox against the state: one request per list, one per inbox's
 * tags. A token without users:read skips users, explained.
 */
export async function verifyDimensions(
  ctx: VerifyContext,
): Promise<{ counts: SubjectCounts[]; tallies: FindingTally[]; requests: number }> {
  const inboxes = await collect(ctx.api.listInboxes());
  const results = [compare(ctx, 'inboxes', inboxes)];
  let users: ApiObject[] | undefined;
  try {
    users = await collect(ctx.api.listUsers());
  } catch (error) {
    if (!isForbidden(error)) throw error;
  }
  if (users) results.push(compare(ctx, 'users', users));
  results.push(compare(ctx, 'business_hours', await ctx.api.listBusinessHours()));
  results.push(compare(ctx, 'holidays', await ctx.api.listHolidays()));
  const { tags, requests } = await allTags(ctx, inboxes);
  results.push(compare(ctx, 'tags', tags));
  const tallies = results.map((r) => r.tally);
  if (!users) {
    const skipped = new FindingTally('users');
    skipped.addCount('not_readable', 1, true, 'GET /settings/users answered 403 (the token lacks users:read)');
    tallies.push(skipped);
  }
  return { counts: results.map((r) => r.counts), tallies, requests: 4 + requests };
}
