import { committedCount } from '../committed.js';
import { type CompletenessFigure, completenessFigure, type ExplainedReason } from '../completeness.js';
import { SCOPES } from '../scopes.js';
import type { Emit } from '../types.js';
import type { ScanSettings } from './process-conversation.js';

/** What one run's listing showed of the conversation list. */
export interface ScanFacts {
  /** The latest page's meta.total, when the paginator tells it. */
  total?: number;
  /** Items the listing served, repeats included. */
  served: number;
  /** Different conversation ids listed. */
  distinct: number;
  /** Listed items without an id (rejected rows). */
  withoutId: number;
  /** No page before the last one holding items came back short. */
  contiguous: boolean;
  /** Items of pages skipped because their body stayed unreadable (read by the next run). */
  unreadable?: number;
  /** Set in a recent-first run: where the backfill stands at the run's end. */
  backfill?: 'running' | 'complete';
  /** Recent-first: the list position the backfill's last page ended at (its pages before this run included). */
  reached?: number;
}

type Explained = Partial<Record<ExplainedReason, number>>;

/**
 * The part of a complete listing's shortfall (meta.total against the different
 * ids listed that still exist) that the listing itself explains. A cap leaves a
 * tail unserved: the items came without holes and stopped before meta.total.
 * Pages shift by one for each item served twice (an arrival ahead of the
 * scan) and for each listed conversation deleted during the scan (`gone`),
 * each time skipping one. What is left (an item missing mid-list, pages short
 * for no reason) stays unexplained.
 */
function listingShortfall(f: ScanFacts, expected: number, gone: number): Explained {
  const shortfall = Math.max(0, expected - (f.distinct - gone) - f.withoutId);
  // Pages skipped unread come first: their items were never served, and the next run reads them.
  const skipped = f.unreadable ?? 0;
  const unreadable = Math.min(shortfall, skipped);
  const rest = shortfall - unreadable;
  const cap = f.contiguous ? Math.min(rest, Math.max(0, expected - f.served - skipped)) : 0;
  const shifts = f.served - f.distinct - f.withoutId + gone;
  return {
    rejected: f.withoutId,
    pages_unreadable: unreadable,
    past_search_cap: cap,
    listing_shifted: Math.min(rest - cap, shifts),
  };
}

/**
 * One scope's figure. `notHeld` counts listed conversations the run knowingly
 * left without a key in the scope (gone, threads skipped); more keys held than
 * the listed ones that should be are conversations kept unlisted (found by
 * their view, 403, or no deletion check this run). In a recent-first run the
 * listing covers part of the list by design: what the state lacks is the
 * backfill's, or, once it is complete, unexplained until the next full scan.
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
  if (f.backfill) {
    const known =
      f.withoutId +
      (threads.threads_forbidden ?? 0) +
      (threads.threads_not_found ?? 0) +
      (threads.threads_unreadable ?? 0);
    const rest = expected - live - known;
    const pending = f.backfill === 'running' ? Math.max(0, rest) : 0;
    // A complete backfill whose pages ran dry, without holes, before meta.total: a cap hid the tail.
    const tail = f.contiguous ? Math.max(0, expected - (f.reached ?? expected)) : 0;
    const cap = f.backfill === 'complete' ? Math.min(Math.max(0, rest), tail) : 0;
    return completenessFigure(which.stream, expected, live, {
      ...threads,
      rejected: f.withoutId,
      past_search_cap: cap,
      backfill_pending: pending,
      kept_unlisted: Math.min(0, rest),
    });
  }
  const kept = Math.max(0, live - (f.distinct - which.notHeld));
  return completenessFigure(which.stream, expected, live, {
    ...listingShortfall(f, expected, gone),
    ...threads,
    kept_unlisted: -kept,
  });
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
