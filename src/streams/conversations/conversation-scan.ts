import type { ApiObject } from '../../api/index.js';
import type { ScratchMap, ScratchSpace } from '../../scratch-space.js';
import { committedCount, committedKeys, committedValue } from '../committed.js';
import { idOf } from '../id-of.js';
import { mapInOrder } from '../map-in-order.js';
import { SCOPES } from '../scopes.js';
import type { Emit } from '../types.js';
import { confirmDeletions } from './confirm-deletions.js';
import { conversationFingerprint } from './conversation-fingerprints.js';
import { type ConversationListing, isPageEnd, PAGE_SIZE, type PageEnd } from './conversation-listing.js';
import { listingNotes } from './listing-notes.js';
import { processConversation, type ScanSettings } from './process-conversation.js';
import type { ScanFacts } from './scan-completeness.js';

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
export function knownCount(s: ScanSettings): number {
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
  /** Every listing of this run (a recent-first run has two), for what they observed together. */
  readonly #listings: ConversationListing[] = [];
  readonly #expected: number;
  #scanned = 0;
  /** Different conversations listed (items without an id included), against meta.total. */
  #distinct = 0;
  /** Listed items without an id (rejected rows). */
  #withoutId = 0;
  /** Items served by the re-read of the last run's holes (./reread-holes.ts): listed again later, no shift. */
  #prelisted = 0;

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
  async *listed(
    listing: ConversationListing,
    onPageEnd?: (page: number) => Emit[],
    role: 'listing' | 'holes' = 'listing',
  ): AsyncIterable<Emit> {
    if (role === 'listing') {
      this.#listing = listing;
      this.#listings.push(listing);
    }
    const { ctx } = this.s;
    const concurrency = this.s.settings.rate.concurrency;
    const work = (entry: ApiObject | PageEnd) =>
      isPageEnd(entry) ? (onPageEnd?.(entry.pageEnd) ?? []) : this.#work(entry);
    for await (const emits of mapInOrder(listing.items(), work, { concurrency })) {
      ctx.metrics?.remaining(this.#estimate());
      yield* emits;
    }
    if (role === 'holes') this.#prelisted += listing.served;
    yield* listingNotes(this.s, listing);
  }

  /** This run's listing skipped pages it could not read: what it did not see proves nothing. */
  get pagesSkipped(): boolean {
    return (this.#listing?.skipped.length ?? 0) > 0;
  }

  get complete(): boolean {
    return (this.#listing?.complete ?? false) && !this.s.ctx.signal.aborted;
  }

  /**
   * What this run's listings observed, for the completeness figures
   * (`backfill`: a recent-first run's). The last listing is the one that
   * reaches the list's end, so its tail is the run's.
   */
  facts(backfill?: Pick<ScanFacts, 'backfill'>): ScanFacts {
    const listings = this.#listings;
    return {
      total: this.#listing?.page?.total,
      served: this.#scanned,
      distinct: this.#distinct - this.#withoutId,
      withoutId: this.#withoutId,
      overlapping: listings.reduce((n, l) => n + l.overlapping, this.#prelisted),
      holes: listings.flatMap((l) => l.holes),
      tailUnserved: this.#listing?.tailUnserved ?? 0,
      unreadable: listings.reduce((n, l) => n + l.skipped.reduce((m, skip) => m + skip.items, 0), 0),
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
