import type { ApiObject } from '../../api/index.js';
import type { Emit } from '../types.js';
import { type BackfillRecord, backfillChange, readBackfill } from './backfill-state.js';
import { ConversationListing, PAGE_SIZE } from './conversation-listing.js';
import type { ListingScan } from './listing-scan.js';
import type { ScanSettings } from './process-conversation.js';
import { scanCompleteness } from './scan-completeness.js';

const DAY_MS = 86_400_000;

/** A recent-first run: the backfill record to resume, and whether this run starts it. */
export interface RecentFirstStart {
  record: BackfillRecord;
  isNew: boolean;
}

/**
 * Whether this run reads recent-first (`conversations.first_sync: recent_first`):
 * a backfill is pending, or the state holds no conversation yet and the run
 * writes conversations or threads. A first full sync that was stopped resumes
 * the same way, at its page, without a recent window. Anything else is a full scan.
 */
export function recentFirstStart(s: ScanSettings, held: number): RecentFirstStart | undefined {
  const { ctx } = s;
  if (!s.wants.conversations && !s.wants.messages) return undefined;
  const record = readBackfill(ctx.state);
  if (record?.recent === false) return { record, isNew: false };
  if (s.settings.conversations.first_sync !== 'recent_first') return undefined;
  if (record) return { record, isNew: false };
  if (held > 0) return undefined;
  return { record: { next_page: 1, started_at: new Date(ctx.clock.now()).toISOString() }, isNew: true };
}

/**
 * After a page of a first sync or a backfill: its position, staged behind the
 * page's rows, then a mark, so that a run killed on the next page keeps this
 * one's threads without a commit per page (docs/architecture.md, "Marks").
 */
function pageDone(record: BackfillRecord): Emit[] {
  return [{ kind: 'state', changes: [backfillChange(record)] }, { kind: 'mark' }];
}

/**
 * A first full sync (nothing held, conversations or threads wanted): after
 * each page it stages where it stands, behind that page's rows, as a backfill
 * record without a recent window. Killed, the next run resumes one page before
 * the last committed page (recentFirstScan) instead of listing from page 1
 * again; a million conversations are 10 000 pages. The full scan deletes the
 * record once its listing is complete. Undefined for any other run.
 */
export function firstSyncPosition(s: ScanSettings, held: number): ((page: number) => Emit[]) | undefined {
  if (held > 0 || (!s.wants.conversations && !s.wants.messages)) return undefined;
  const started_at = new Date(s.ctx.clock.now()).toISOString();
  return (page) => pageDone({ next_page: page + 1, started_at, recent: false });
}

/** Created within the window, by its created_at; an item without a readable one counts as older. */
function isRecent(item: ApiObject | undefined, cutoffMs: number): boolean {
  const created = typeof item?.created_at === 'string' ? Date.parse(item.created_at) : Number.NaN;
  return Number.isFinite(created) && created >= cutoffMs;
}

/** Reports where the backfill stands after each of its pages, with the time left at this run's pace. */
class BackfillPace {
  readonly #startedMs: number;

  constructor(
    private readonly s: ScanSettings,
    private readonly listing: ConversationListing,
    private readonly startPage: number,
  ) {
    this.#startedMs = s.ctx.clock.now();
  }

  /** `page` read to its end: the backfill's position is every item of the pages up to it. */
  report(page: number, status: 'running' | 'complete'): void {
    const info = this.listing.page;
    const perPage = info?.perPage ?? PAGE_SIZE;
    const total = info?.total ?? this.listing.served;
    const done = status === 'complete' ? total : Math.min(total, page * perPage);
    const elapsed = this.s.ctx.clock.now() - this.#startedMs;
    const read = done - (this.startPage - 1) * perPage;
    const eta =
      status === 'running' && read > 0 && elapsed > 0 ? Math.round(((total - done) * elapsed) / read) : undefined;
    this.s.ctx.metrics?.backfill?.({ status, done, total, ...(eta === undefined ? {} : { eta_ms: eta }) });
  }
}

/**
 * A recent-first run (docs/streams.md, "Recent-first first sync"):
 *
 * 1. the recent window, newest first (the document's default sort), up to the
 *    first page that reaches past `recent_days` ago, then a commit: the
 *    warehouse holds this month's conversations within minutes;
 * 2. the backfill, oldest first from the page the last run reached (one page
 *    earlier, to absorb conversations removed from earlier pages since), at
 *    most `backfill_pages_per_run` new pages. After each page the record's
 *    `next_page` is staged behind that page's rows, so a crash resumes at the
 *    last committed page.
 *
 * A conversation read by both passes is written once: the second pass finds
 * its fingerprint committed (or seen in this run). No deletion is looked for
 * until the backfill is complete (only a complete listing can suggest one),
 * and what the backfill has not reached is not in state, so it can never be
 * tombstoned.
 */
export async function* recentFirstScan(scan: ListingScan, start: RecentFirstStart): AsyncIterable<Emit> {
  const { s } = scan;
  const { ctx, signal } = s;
  const config = s.settings.conversations;
  const { record } = start;
  // Staged before any row: the first commit already says a backfill is pending,
  // so a crash after it resumes recent-first instead of starting a full scan.
  if (start.isNew) yield { kind: 'state', changes: [backfillChange(record)] };
  // A first full sync's position has no recent window: its pages are read oldest first only.
  if (record.recent !== false) {
    const cutoff = ctx.clock.now() - config.recent_days * DAY_MS;
    const recent = new ConversationListing(ctx.api, signal, {
      sort: 'newest',
      stopAfter: (last) => !isRecent(last, cutoff),
    });
    yield* scan.listed(recent);
    if (ctx.signal.aborted) return;
    yield { kind: 'checkpoint' };
  }

  const startPage = Math.max(1, record.next_page - 1);
  // The page of overlap is not part of the budget: each run advances by the budget.
  const overlap = record.next_page - startPage;
  const budget = config.backfill_pages_per_run;
  const backfill = new ConversationListing(ctx.api, signal, {
    sort: 'oldest',
    startPage,
    maxPages: budget === undefined ? undefined : budget + overlap,
  });
  const pace = new BackfillPace(s, backfill, startPage);
  yield* scan.listed(backfill, (page) => {
    pace.report(page, 'running');
    return pageDone({ ...record, next_page: page + 1 });
  });
  if (ctx.signal.aborted) return;
  if (backfill.complete) {
    pace.report(backfill.currentPage, 'complete');
    // Every page was read: from the next run on, full scans (with deletion checks).
    yield { kind: 'state', changes: [backfillChange(null)] };
  }
  yield { kind: 'checkpoint' };
  if (ctx.signal.aborted) return;
  yield* scanCompleteness(s, scan.facts({ backfill: backfill.complete ? 'complete' : 'running' }));
}
