import { committedCount } from '../committed.js';
import { type CompletenessFigure, completenessFigure, type ExplainedReason } from '../completeness.js';
import { SCOPES } from '../scopes.js';
import type { Emit } from '../types.js';
import type { ListingHole } from './conversation-listing.js';
import type { ScanSettings } from './process-conversation.js';

/** What one run's listing observed of the conversation list. */
export interface ScanFacts {
  /** The latest page's meta.total, when the paginator tells it. */
  total?: number;
  /** Items the listing served, repeats included. */
  served: number;
  /** Different conversation ids listed. */
  distinct: number;
  /** Listed items without an id (rejected rows). */
  withoutId: number;
  /** Items served at positions an earlier page had served (overlapping pages): repeats that prove no shift. */
  overlapping: number;
  /** Items mid-list no page served and no re-read found, with where they sit. */
  holes: ListingHole[];
  /** The tail the last page left unserved (meta.total past the last position served): what a cap hides. */
  tailUnserved: number;
  /** Items of pages skipped because their body stayed unreadable (read by the next run). */
  unreadable?: number;
  /** Set in a recent-first run: where the backfill stands at the run's end. */
  backfill?: 'running' | 'complete';
}

type Explained = Partial<Record<ExplainedReason, number>>;

/** Items the holes lack, all together. */
export function missingIn(holes: readonly ListingHole[]): number {
  return holes.reduce((n, hole) => n + hole.missing, 0);
}

/**
 * The part of a complete listing's shortfall (meta.total against the different
 * ids listed that still exist) that the listing's own observations explain,
 * each up to what was observed, never by arithmetic on counts alone:
 * - items of pages skipped unread (each page counted when skipped);
 * - holes mid-list that no re-read filled explain nothing: they stay
 *   unexplained (`INCOMPLETE`), whatever else was seen;
 * - a tail: the last page said it was the last, and its meta placed its last
 *   item before meta.total (a search cap);
 * - shifts: a conversation served twice at a new position (one arrived ahead
 *   of the scan) or listed and then confirmed deleted (`gone`: 404), each
 *   moving the later pages by one; a repeat at a position an earlier page had
 *   served (pages that overlap) is no shift.
 */
function listingShortfall(f: ScanFacts, expected: number, gone: number): Explained {
  const shortfall = Math.max(0, expected - (f.distinct - gone) - f.withoutId);
  const unreadable = Math.min(shortfall, f.unreadable ?? 0);
  let rest = shortfall - unreadable;
  rest -= Math.min(rest, missingIn(f.holes));
  const cap = Math.min(rest, f.tailUnserved);
  rest -= cap;
  const movedRepeats = Math.max(0, f.served - f.distinct - f.withoutId - f.overlapping);
  return {
    rejected: f.withoutId,
    pages_unreadable: unreadable,
    past_search_cap: cap,
    listing_shifted: Math.min(rest, movedRepeats + gone),
  };
}

/**
 * One scope's figure. `notHeld` counts listed conversations the run knowingly
 * left without a key in the scope (gone, threads skipped); more keys held than
 * the listed ones that should be are conversations kept unlisted (found by
 * their view, 403, or no deletion check this run). In a recent-first run the
 * listing covers part of the list by design: what the state lacks is the
 * backfill's, or, once it is complete, unexplained until the next full scan
 * (but for a tail its last page left unserved).
 */
function scopeFigure(
  s: ScanSettings,
  f: ScanFacts,
  which: { stream: 'conversations' | 'messages'; scope: string; notHeld: number; threads?: Explained },
  gone: number,
): CompletenessFigure {
  const expected = f.total ?? f.distinct + f.withoutId;
  const live = committedCount(s.ctx.state, which.scope);
  const threads = which.threads ?? {};
  const holes = f.holes.length > 0 ? { holes: f.holes } : {};
  if (f.backfill) {
    const known =
      f.withoutId +
      (threads.threads_forbidden ?? 0) +
      (threads.threads_not_found ?? 0) +
      (threads.threads_unreadable ?? 0);
    const rest = expected - live - known - missingIn(f.holes);
    const pending = f.backfill === 'running' ? Math.max(0, rest) : 0;
    const cap = f.backfill === 'complete' ? Math.min(Math.max(0, rest), f.tailUnserved) : 0;
    return withHoles(
      completenessFigure(which.stream, expected, live, {
        ...threads,
        rejected: f.withoutId,
        past_search_cap: cap,
        backfill_pending: pending,
        kept_unlisted: Math.min(0, rest + missingIn(f.holes)),
      }),
      holes,
    );
  }
  const kept = Math.max(0, live - (f.distinct - which.notHeld));
  return withHoles(
    completenessFigure(which.stream, expected, live, {
      ...listingShortfall(f, expected, gone),
      ...threads,
      kept_unlisted: -kept,
    }),
    holes,
  );
}

/** The figure with the listing's holes named, when it has an unexplained shortfall they can account for. */
function withHoles(figure: CompletenessFigure, holes: Pick<CompletenessFigure, 'holes'>): CompletenessFigure {
  return figure.unexplained > 0 ? { ...figure, ...holes } : figure;
}

/**
 * Contacts have no list of their own: expected are the different contacts the
 * listed conversations embed; contacts are never tombstoned, so the state may
 * hold more (explained), never fewer.
 */
function contactsFigure(s: ScanSettings): CompletenessFigure {
  const live = committedCount(s.ctx.state, SCOPES.contacts);
  return completenessFigure('contacts', s.contactsSeen, live, {
    never_tombstoned: -Math.max(0, live - s.contactsSeen),
  });
}

/**
 * The scan's completeness figures, one per selected stream, counted on the
 * state as committed after the scan (the caller checkpoints first).
 */
export function* scanCompleteness(s: ScanSettings, f: ScanFacts): Generator<Emit> {
  if (s.wants.conversations) {
    const which = { stream: 'conversations' as const, scope: SCOPES.conversations, notHeld: s.listedGone };
    const figure = scopeFigure(s, f, which, s.listedGone);
    yield { kind: 'completeness', figure };
  }
  if (s.wants.messages) {
    const threads = {
      threads_forbidden: s.threadsForbidden,
      threads_not_found: s.threadsNotFound,
      threads_unreadable: s.threadsUnreadable,
    };
    const notHeld = s.listedGone + s.threadsForbidden + s.threadsNotFound + s.threadsUnreadable;
    const figure = scopeFigure(s, f, { stream: 'messages', scope: SCOPES.threadAt, notHeld, threads }, s.listedGone);
    yield { kind: 'completeness', figure };
  }
  if (s.wants.contacts) yield { kind: 'completeness', figure: contactsFigure(s) };
}
