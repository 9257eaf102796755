/**
 * The conversation stream, entry of src/streams/conversations/. A conversation's
 * path from a list page to a line of a gzip file, step by step:
 *
 * 1. `conversation-listing.ts` reads `api/endpoints/helpdesk-api.ts` `listConversations`:
 *    `POST /search` (or `GET /conversations/mine`), oldest first, 100 a page;
 *    `api/endpoints/paginate.ts` follows the pages, every request through the one
 *    `api/queue/request-queue.ts`. (A recent-first first sync, `recent-first-scan.ts`,
 *    reads the recent window newest first, then a resumable oldest-first backfill.)
 * 2. `conversation-scan.ts` (the scan this file starts) hands each listed item, a
 *    few at a time and emitted in list order (`streams/map-in-order.ts`), to
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
import type { CatalogStream } from '../../catalog/catalog.js';
import type { StreamName } from '../../config/schema.js';
import { memoryScratchSpace, type ScratchSpace } from '../../scratch-space.js';
import { committedKeys } from '../committed.js';
import { SCOPES } from '../scopes.js';
import type { ScanStreamSettings } from '../stream-settings.js';
import type { Emit, ProbeContext, Stream, StreamContext } from '../types.js';
import { backfillChange, readBackfill } from './backfill-state.js';
import { viewFields } from './conversation-fingerprints.js';
import { ConversationListing } from './conversation-listing.js';
import { ConversationScan, knownCount } from './conversation-scan.js';
import { holesChange } from './listing-holes.js';
import type { ScanSettings } from './process-conversation.js';
import { firstSyncPosition, recentFirstScan, recentFirstStart } from './recent-first-scan.js';
import { rereadHoles } from './reread-holes.js';
import { scanCompleteness } from './scan-completeness.js';

function isEmpty(keys: Iterable<string>): boolean {
  for (const _ of keys) return false;
  return true;
}

function settingsFor(
  ctx: StreamContext,
  settings: ScanStreamSettings,
  signal: AbortSignal,
  scratch: ScratchSpace,
): ScanSettings {
  const wants = (name: StreamName) => ctx.selected?.has(name) ?? true;
  const full = (name: StreamName) => (ctx.isFullRefresh ? ctx.isFullRefresh(name) : ctx.fullRefresh);
  return {
    ctx,
    settings,
    signal,
    wants: { conversations: wants('conversations'), contacts: wants('contacts'), messages: wants('messages') },
    full: { conversations: full('conversations'), contacts: full('contacts'), messages: full('messages') },
    seenContacts: scratch.map('contacts-judged'),
    pendingFetches: 0,
    threadsNeeded: 0,
    liveThreadRows: scratch.map('live-thread-rows'),
    viewFields: viewFields(settings.conversations),
    firstScan: !wants('messages') || isEmpty(committedKeys(ctx.state, SCOPES.threadAt)),
    listedGone: 0,
    threadsForbidden: 0,
    threadsNotFound: 0,
    threadsUnreadable: 0,
    contactsSeen: 0,
  };
}

/**
 * The whole list, oldest first: conversations created during the scan append
 * at the end instead of shifting the pages not read yet; the holes the last
 * run left are read again first (./reread-holes.ts). After a complete
 * listing, conversations that vanished are confirmed deleted; then the
 * completeness figures, counted on what the state holds once committed.
 */
async function* fullScan(scan: ConversationScan, position?: (page: number) => Emit[]): AsyncIterable<Emit> {
  yield* rereadHoles(scan);
  if (scan.s.signal.aborted) return;
  const listing = new ConversationListing(scan.s.ctx.api, scan.s.signal, { sort: 'oldest', skipUnreadablePages: true });
  yield* scan.listed(listing, position);
  if (!scan.complete) return;
  // A backfill left pending (first_sync changed since), or this first sync's position: covered now.
  if (position || readBackfill(scan.s.ctx.state)) yield { kind: 'state', changes: [backfillChange(null)] };
  const short = scan.short;
  // Pages skipped unread (said by PAGE_UNREADABLE) leave their conversations unseen: no deletion this run.
  if (short && !scan.pagesSkipped) {
    const message =
      `the conversation listing ended after ${short.listed} of the ${short.total} conversations its meta.total ` +
      'announced; conversations not listed keep their rows, none is tombstoned this run';
    yield { kind: 'warning', code: 'LISTING_SHORT', message };
  } else if (!short && !scan.pagesSkipped) {
    // The scan is committed before deletions are confirmed: a safe point.
    yield { kind: 'checkpoint' };
    yield* scan.deletions();
    if (scan.s.ctx.signal.aborted) return;
  }
  // What this listing could not fill, the next run re-reads first (or nothing, once none is left).
  yield { kind: 'state', changes: [holesChange('oldest', listing.holes)] };
  yield { kind: 'checkpoint' };
  if (!scan.s.ctx.signal.aborted) yield* scanCompleteness(scan.s, scan.facts());
}

/** The streams the scan serves, in the order its progress names them; every stream declared with this read. */
const SCAN_PARTS = ['conversations', 'contacts', 'messages'] as const satisfies readonly ScanStreamName[];
type ScanStreamName = Extract<CatalogStream, { read: { kind: 'conversation-scan' } }>['name'];
// A stream declared with the scan's read that the scan does not serve is a compile error here.
const _everyPartServed: Exclude<ScanStreamName, (typeof SCAN_PARTS)[number]> extends never ? true : never = true;

async function first<T>(items: AsyncIterable<T>): Promise<T | undefined> {
  for await (const item of items) return item;
  return undefined;
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
export function conversationScanStream(settings: ScanStreamSettings): Stream {
  return {
    name: 'conversations',
    serves: SCAN_PARTS,
    run: (ctx) => scanRun(ctx, settings),
    async probe(ctx: ProbeContext) {
      await first(ctx.api.listConversations());
      return `${settings.conversations.endpoint === 'mine' ? 'GET /conversations/mine' : 'POST /search'} answers`;
    },
  };
}

async function* scanRun(ctx: StreamContext, settings: ScanStreamSettings): AsyncIterable<Emit> {
  if (ctx.signal.aborted) return;
  const controller = new AbortController();
  const onAbort = () => controller.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  const scratch = ctx.scratch ?? memoryScratchSpace();
  const scan = new ConversationScan(settingsFor(ctx, settings, controller.signal, scratch), scratch);
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
}
