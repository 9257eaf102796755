/**
 * The conversation stream, entry of src/streams/conversations/. A conversation's
 * path from a list page to a line of a gzip file, step by step:
 *
 * 1. `conversation-listing.ts` reads `api/helpdesk-api.ts` `listConversations`:
 *    `POST /search` (or `GET /conversations/mine`), oldest first, 100 a page;
 *    `api/paginate.ts` follows the pages, every request through the one
 *    `api/request-queue.ts`. (A recent-first first sync, `recent-first-scan.ts`,
 *    reads the recent window newest first, then a resumable oldest-first backfill.)
 * 2. `conversation-scan-stream.ts` (this file) hands each listed item, a few at a
 *    time and emitted in list order (`streams/map-in-order.ts`), to
 * 3. `process-conversation.ts`: its fingerprint (`conversation-fingerprints.ts`) against
 *    the committed one (`committed.ts`). Unchanged: nothing, no request. New or
 *    changed: a conversations record, a contacts record when the embedded contact's
 *    hash changed, and the thread fetched (`GET /conversation/{id}/messages`).
 * 4. `thread-records.ts` turns the thread into records for `thread_events`,
 *    `messages` and `attachments`, keyed as the output contract says, and keeps
 *    only the new and changed ones against the per-record hashes of
 *    `thread-state.ts` (plus tombstones for records gone); one batch per
 *    conversation carries them with the state changes that commit with them.
 * 5. After a complete listing, `confirm-deletions.ts` confirms each conversation no
 *    longer listed with `GET /conversation/{id}` before it is tombstoned.
 * 6. `sync/run-sync.ts` drains the stream; `sync/emit-writer.ts` applies each emit
 *    whole to the output session and runs checkpoints only between two emits
 *    (`commit/checkpoint-policy.ts`).
 * 7. `commit/output-session.ts` `writeRow`: `output/normalize/normalize-record.ts`
 *    shapes the record by its table's spec (`output/rows/table-specs.ts`; a record
 *    without a key goes to `_rejected/`), `output/normalize/safe-text.ts` makes it
 *    one JSON line, `output/batch-writer.ts` appends it to the table's open
 *    `output/jsonl-gzip-file.ts` in the spool.
 * 8. At a checkpoint `commit/commit-checkpoint.ts` records the closed files as
 *    pending, uploads them to the sink and commits them with the staged state;
 *    `commit/write-manifest.ts` lists them in the run's manifest at the end.
 * 9. After the last commit, `scan-completeness.ts` counts what the state holds
 *    against what the listing said exists: the completeness figures.
 */
import type { ApiObject } from '../../api/types.js';
import type { StreamName } from '../../config/schema.js';
import { memoryScratchSpace, type ScratchMap, type ScratchSpace } from '../../scratch-space.js';
import { idOf } from '../id-of.js';
import { mapInOrder } from '../map-in-order.js';
import { SCOPES } from '../scopes.js';
import type { Emit, Stream, StreamContext } from '../types.js';
import { backfillChange, readBackfill } from './backfill-state.js';
import { committedCount, committedKeys, committedValue } from './committed.js';
import { confirmDeletions } from './confirm-deletions.js';
import { conversationFingerprint, viewFields } from './conversation-fingerprints.js';
import { ConversationListing, isPageEnd, PAGE_SIZE, type PageEnd } from './conversation-listing.js';
import { processConversation, type ScanSettings } from './process-conversation.js';
import { firstSyncPosition, recentFirstScan, recentFirstStart } from './recent-first-scan.js';
import { type ScanFacts, scanCompleteness } from './scan-completeness.js';

function isEmpty(keys: Iterable<string>): boolean {
  for (const _ of keys) return false;
  return true;
}

function settingsFor(ctx: StreamContext, signal: AbortSignal, scratch: ScratchSpace): ScanSettings {
  const wants = (name: StreamName) => ctx.selected?.has(name) ?? true;
  const full = (name: StreamName) => (ctx.isFullRefresh ? ctx.isFullRefresh(name) : ctx.fullRefresh);
  return {
    ctx,
    signal,
    wants: { conversations: wants('conversations'), contacts: wants('contacts'), messages: wants('messages') },
    full: { conversations: full('conversations'), contacts: full('contacts'), messages: full('messages') },
    seenContacts: scratch.map('contacts-judged'),
    pendingFetches: 0,
    threadsNeeded: 0,
    liveThreadRows: scratch.map('live-thread-rows'),
    viewFields: viewFields(ctx.config.conversations),
    firstScan: !wants('messages') || isEmpty(committedKeys(ctx.state, SCOPES.threadAt)),
    listedGone: 0,
    threadsForbidden: 0,
    threadsNotFound: 0,
    contactsSeen: 0,
  };
}

/** Scopes whose keys are conversation ids this run is responsible for (deletion suspects). */
function trackedScopes(s: ScanSettings): string[] {
  const scopes: string[] = [];
  if (s.wants.conversations) scopes.push(SCOPES.conversations);
  if (s.wants.messages) scopes.push(SCOPES.threadAt);
  return scopes;
}

/**
 * Writes the suspects (committed in a tracked scope, not listed) into `into`,
 * keyed by their order, and returns how many. Synchronous from start to end, so
 * no checkpoint commits in between: an id committed in an earlier tracked
 * scope was already taken from there.
 */
function collectSuspects(s: ScanSettings, seen: ScratchMap, into: ScratchMap): number {
  const scopes = trackedScopes(s);
  let n = 0;
  scopes.forEach((scope, i) => {
    const earlier = scopes.slice(0, i);
    for (const id of committedKeys(s.ctx.state, scope)) {
      if (seen.has(id) || earlier.some((e) => committedValue(s.ctx.state, e, id) !== undefined)) continue;
      into.set(String(n).padStart(12, '0'), id);
      n += 1;
    }
  });
  return n;
}

function* valuesOf(map: ScratchMap): Generator<string> {
  for (const key of map.keys()) yield map.get(key) as string;
}

/** Conversations of last run (for the estimate of pages left when the paginator does not say); 0 on a first sync. */
function knownCount(s: ScanSettings): number {
  let count = 0;
  for (const scope of trackedScopes(s)) count = Math.max(count, committedCount(s.ctx.state, scope));
  return count;
}

/** One run of the scan: the listing phase, then the deletion phase. */
export class ConversationScan {
  /** id → fingerprint of every conversation listed so far (a scratch map: it grows with the account). */
  readonly #seen: ScratchMap;
  readonly #scratch: ScratchSpace;
  #listing: ConversationListing | undefined;
  readonly #expected: number;
  #scanned = 0;
  /** Different conversations listed (items without an id included), against meta.total. */
  #distinct = 0;
  /** Listed items without an id (rejected rows). */
  #withoutId = 0;

  constructor(
    readonly s: ScanSettings,
    scratch: ScratchSpace,
  ) {
    this.#scratch = scratch;
    this.#seen = scratch.map('listed');
    this.#expected = knownCount(s);
  }

  #work = (item: ApiObject): Emit[] | Promise<Emit[]> => {
    this.#scanned += 1;
    this.s.ctx.metrics?.count('conversations_scanned');
    const id = idOf(item);
    if (id === undefined || !this.#seen.has(id)) this.#distinct += 1;
    if (id === undefined) {
      this.#withoutId += 1;
      return processConversation(this.s, item);
    }
    // Listed again in this run (a page shifted under us, pages that overlap, ties
    // in the server's sort): processed, its thread fetched and its rows written
    // once per run. A change between the two listings is still read: the state
    // keeps the fingerprint of the first, so the next run sees it changed.
    if (this.#seen.has(id)) {
      this.s.ctx.metrics?.count('conversations_relisted');
      return [];
    }
    const fp = conversationFingerprint(item);
    this.#seen.set(id, fp);
    return processConversation(this.s, item, fp);
  };

  /**
   * Requests left: list pages (exact when the paginator tells its last page,
   * else guessed from last run's count), threads in flight, and threads of the
   * conversations not listed yet, assumed to change in the same proportion as
   * those listed so far. An estimate, shown as one.
   */
  #estimate(): number {
    const page = this.#listing?.page;
    const total = page?.total ?? this.#expected;
    const unlisted = Math.max(0, total - this.#scanned);
    const pages =
      page?.lastPage !== undefined
        ? Math.max(0, page.lastPage - (page.currentPage ?? page.pagesRead))
        : Math.ceil(unlisted / PAGE_SIZE);
    const share = this.#scanned === 0 ? 0 : this.s.threadsNeeded / this.#scanned;
    return pages + this.s.pendingFetches + Math.round(unlisted * share);
  }

  /**
   * Every conversation of `listing`, one batch each, in list order; `onPageEnd`
   * adds emits after a page's last batch (state that holds once the whole page
   * is committed). `complete` tells whether the listing reached its end.
   */
  async *listed(listing: ConversationListing, onPageEnd?: (page: number) => Emit[]): AsyncIterable<Emit> {
    this.#listing = listing;
    const { ctx } = this.s;
    const concurrency = ctx.config.source.rate_limit.concurrency;
    const work = (entry: ApiObject | PageEnd) =>
      isPageEnd(entry) ? (onPageEnd?.(entry.pageEnd) ?? []) : this.#work(entry);
    for await (const emits of mapInOrder(listing.items(), work, { concurrency })) {
      ctx.metrics?.remaining(this.#estimate());
      yield* emits;
    }
  }

  get complete(): boolean {
    return (this.#listing?.complete ?? false) && !this.s.ctx.signal.aborted;
  }

  /** What this run's listing showed, for the completeness figures (`backfill`: a recent-first run's). */
  facts(backfill?: Pick<ScanFacts, 'backfill' | 'reached'>): ScanFacts {
    const listing = this.#listing;
    return {
      total: listing?.page?.total,
      served: this.#scanned,
      distinct: this.#distinct - this.#withoutId,
      withoutId: this.#withoutId,
      contiguous: listing?.contiguous ?? true,
      ...backfill,
    };
  }

  /**
   * A listing that reached its last page with fewer conversations than its own
   * meta.total said (a deployment that caps search results, or pages that
   * shifted): some conversations were not seen, so their absence proves nothing.
   */
  get short(): { listed: number; total: number } | undefined {
    const total = this.#listing?.page?.total;
    return total !== undefined && this.#distinct < total ? { listed: this.#distinct, total } : undefined;
  }

  /** Confirms each conversation committed in state but not listed (see confirmDeletions). */
  async *deletions(): AsyncIterable<Emit> {
    const { ctx } = this.s;
    // Materialized first (in scratch, not on the heap): checkpoints during the
    // confirmations change the committed keys.
    const pending = this.#scratch.map('suspects');
    let left = collectSuspects(this.s, this.#seen, pending);
    ctx.metrics?.remaining(left);
    for await (const emits of confirmDeletions(this.s, valuesOf(pending))) {
      ctx.metrics?.remaining(--left);
      yield* emits;
      if (ctx.signal.aborted) return;
    }
  }
}

/**
 * The whole list, oldest first: conversations created during the scan append
 * at the end instead of shifting the pages not read yet. After a complete
 * listing, conversations that vanished are confirmed deleted; then the
 * completeness figures, counted on what the state holds once committed.
 */
async function* fullScan(scan: ConversationScan, position?: (page: number) => Emit[]): AsyncIterable<Emit> {
  yield* scan.listed(new ConversationListing(scan.s.ctx.api, scan.s.signal, { sort: 'oldest' }), position);
  if (!scan.complete) return;
  // A backfill left pending (first_sync changed since), or this first sync's position: covered now.
  if (position || readBackfill(scan.s.ctx.state)) yield { kind: 'state', changes: [backfillChange(null)] };
  const short = scan.short;
  if (short) {
    const message =
      `the conversation listing ended after ${short.listed} of the ${short.total} conversations its meta.total ` +
      'announced; conversations not listed keep their rows, none is tombstoned this run';
    yield { kind: 'warning', code: 'LISTING_SHORT', message };
  } else {
    // The scan is committed before deletions are confirmed: a safe point.
    yield { kind: 'checkpoint' };
    yield* scan.deletions();
    if (scan.s.ctx.signal.aborted) return;
  }
  yield { kind: 'checkpoint' };
  if (!scan.s.ctx.signal.aborted) yield* scanCompleteness(scan.s, scan.facts());
}

/**
 * One scan of the conversation list serves three streams (docs/streams.md):
 * conversations (rows whose fingerprint changed), contacts (the embedded contact,
 * when its hash changed) and messages (thread events, messages and attachment
 * metadata, fetched only for new or changed conversations). Selecting any one of
 * them runs the scan; only the selected ones write rows. Threads are fetched
 * with bounded concurrency, emitted in list order, one batch per conversation.
 * After a complete listing, conversations that vanished are confirmed deleted;
 * after an incomplete one (error, interruption), nothing is called deleted.
 */
export const conversationScanStream: Stream = {
  name: 'conversations',
  serves: ['conversations', 'contacts', 'messages'],
  tables: ['conversations', 'contacts', 'messages', 'thread_events', 'attachments'],
  async *run(ctx: StreamContext): AsyncIterable<Emit> {
    if (ctx.signal.aborted) return;
    const controller = new AbortController();
    const onAbort = () => controller.abort(ctx.signal.reason);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const scratch = ctx.scratch ?? memoryScratchSpace();
    const scan = new ConversationScan(settingsFor(ctx, controller.signal, scratch), scratch);
    try {
      const held = knownCount(scan.s);
      const backfill = recentFirstStart(scan.s, held);
      yield* backfill ? recentFirstScan(scan, backfill) : fullScan(scan, firstSyncPosition(scan.s, held));
    } catch (error) {
      if (ctx.signal.aborted) return;
      throw error;
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      // Stops thread requests still in flight when the run ends this stream early.
      controller.abort();
    }
  },
};
