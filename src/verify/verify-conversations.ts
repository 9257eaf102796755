import type { ApiObject } from '../api/index.js';
import { committedCount, committedKeys, committedValue } from '../streams/committed.js';
import {
  conversationFingerprint,
  threadFingerprint,
  viewFields,
} from '../streams/conversations/conversation-fingerprints.js';
import { ConversationListing, isPageEnd } from '../streams/conversations/conversation-listing.js';
import { idOf } from '../streams/id-of.js';
import { SCOPES } from '../streams/scopes.js';
import { FindingTally, type SubjectCounts, type VerifyContext } from './verify-types.js';

/** A listed conversation whose row verify compares field by field, and whether it changed since the last sync. */
export interface SampledConversation {
  item: ApiObject;
  /** Its fingerprint differs from the state's for a known reason: field differences are expected. */
  changed: boolean;
}

export interface ConversationCheck {
  counts: SubjectCounts;
  tally: FindingTally;
  sample: SampledConversation[];
}

function after(value: unknown, ms: number | undefined): boolean {
  const t = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return ms === undefined || (Number.isFinite(t) && t > ms);
}

/**
 * Compares one listed item with the state: new, changed, or as held. A change
 * is the next sync's when `updated_at` is later than the last sync's start, or
 * when only view-only fields moved; otherwise it happened behind the state's back.
 * Returns whether the item differs from what the state holds.
 */
function judge(ctx: VerifyContext, tally: FindingTally, item: ApiObject, id: string): boolean {
  const held = committedValue(ctx.state, SCOPES.conversations, id);
  if (held === undefined) {
    if (after(item.created_at, ctx.lastSyncStartMs))
      tally.add('new_since_last_sync', id, true, 'created after the last sync started; the next sync writes it');
    else if (ctx.backfillPending)
      tally.add('backfill_pending', id, true, 'not reached by the recent-first backfill yet');
    else tally.add('missing_from_state', id, false, 'listed by the API, unknown to the state');
    return true;
  }
  if (held === conversationFingerprint(item)) return false;
  if (after(item.updated_at, ctx.lastSyncStartMs))
    tally.add('changed_since_last_sync', id, true, 'updated after the last sync started; the next sync writes it');
  else if (committedValue(ctx.state, SCOPES.threadAt, id) === threadFingerprint(item, viewFields(ctx.conversations)))
    tally.add('viewed_since_last_sync', id, true, 'only view-only fields moved; the next sync writes the new view');
  else
    tally.add('changed_behind_state', id, false, 'differs from the state though updated_at says the last sync saw it');
  return true;
}

/**
 * Held conversations the listing did not show. Past a search cap they cannot
 * be checked (the cap hides them); otherwise each costs one
 * `GET /conversation/{id}`: 404 → deleted since the last sync (the next
 * sync's tombstone), found → the listing lacks it.
 */
async function unlisted(ctx: VerifyContext, tally: FindingTally, listed: (id: string) => boolean, capped: boolean) {
  let requests = 0;
  // Keys are read a chunk at a time: nothing here grows with the account.
  for (const id of committedKeys(ctx.state, SCOPES.conversations)) {
    if (listed(id)) continue;
    if (capped) {
      tally.add('past_search_cap', id, true, 'held, and not listed past the search cap');
      continue;
    }
    requests += 1;
    if ((await ctx.api.getConversation(id)) === null)
      tally.add('deleted_since_last_sync', id, true, 'its view answers 404; the next sync writes its tombstone');
    // GET /conversations/mine lists only the caller's live conversations: one reassigned or trashed leaves it.
    else if (ctx.conversations.endpoint === 'mine')
      tally.add('left_mine', id, true, 'held, not in /conversations/mine any more (reassigned or trashed); kept');
    else tally.add('not_listed', id, false, 'held and its view answers, but the listing does not show it');
  }
  return requests;
}

/**
 * The conversation listing against the state: every listed item judged, the
 * listing's own shortfall against meta.total (a cap explains a tail, a hole is
 * unexplained), held conversations it did not show, and `sampleSize` items
 * spread over the list for the field-by-field comparison.
 */
export async function verifyConversations(
  ctx: VerifyContext,
  sampleSize: number,
): Promise<ConversationCheck & { requests: number }> {
  const tally = new FindingTally('conversations');
  const listing = new ConversationListing(ctx.api, new AbortController().signal, { sort: 'oldest' });
  const seen = ctx.scratch.map('verify-listed');
  const sample: SampledConversation[] = [];
  let distinct = 0;
  let withoutId = 0;
  for await (const entry of listing.items()) {
    if (isPageEnd(entry)) continue;
    const id = idOf(entry);
    if (id === undefined) {
      withoutId += 1;
      continue;
    }
    if (seen.has(id)) continue;
    seen.set(id, '');
    const changed = judge(ctx, tally, entry, id);
    const every = Math.max(1, Math.floor((listing.page?.total ?? sampleSize) / Math.max(1, sampleSize)));
    if (sample.length < sampleSize && distinct % every === 0) sample.push({ item: entry, changed });
    distinct += 1;
  }
  const total = listing.page?.total ?? distinct + withoutId;
  const shortfall = total - distinct - withoutId;
  // A tail is explained only as its last page showed it; a hole the re-reads could not fill never is.
  const tail = listing.holes.length > 0 ? 0 : Math.min(Math.max(0, shortfall), listing.tailUnserved);
  const capped = tail > 0;
  if (capped) tally.addCount('listing_capped', tail, true, 'the listing stopped serving items before meta.total');
  tally.addCount('listing_short', shortfall - tail, false, 'meta.total counts more than the pages served (a hole)');
  tally.addCount('rejected', withoutId, true, 'listed without an id: a rejected row, never in state');
  const requests = listing.pagesRead + (await unlisted(ctx, tally, (id) => seen.has(id), capped));
  const counts = { subject: 'conversations', api: total, state: committedCount(ctx.state, SCOPES.conversations) };
  return { counts, tally, sample, requests };
}
