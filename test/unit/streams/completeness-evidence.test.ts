import { describe, expect, it } from 'vitest';
import { type CompletenessFigure, EXPLAINED_REASONS, type ExplainedReason } from '../../../src/streams/completeness.js';
import type { ScanSettings } from '../../../src/streams/conversations/process-conversation.js';
import { type ScanFacts, scanCompleteness } from '../../../src/streams/conversations/scan-completeness.js';
import { reportsCompleteness } from '../../../src/streams/reports/reports-completeness.js';
import { reportScope, SCOPES } from '../../../src/streams/scopes.js';
import type { ReportStreamSettings } from '../../../src/streams/stream-settings.js';
import type { StateReader } from '../../../src/streams/types.js';

/**
 * Every reason a completeness figure can give for a difference is set only
 * from something the run observed (docs/streams.md, "Completeness"), never by
 * arithmetic on counts alone. Each reason has two runs here with the same
 * counts (what the API says exists, what the state holds): one where the run
 * observed the cause, which explains the difference, and one where it did
 * not, which leaves the same difference unexplained. A reason added to the
 * list without its pair fails the first test.
 */

/** A state holding `n` keys in each scope given. */
function stateOf(counts: Record<string, number>): StateReader {
  const keys = (scope: string) => Array.from({ length: counts[scope] ?? 0 }, (_, i) => `k${i}`);
  return {
    get: (scope, key) => (keys(scope).includes(key) ? 'x' : undefined),
    keys,
    countKeys: (scope) => counts[scope] ?? 0,
  };
}

interface ScanCase {
  facts: Partial<ScanFacts>;
  settings?: Partial<ScanSettings>;
  held: number;
  contacts?: number;
}

/** The scan's figures for a listing of `total` that observed `facts`, with `held` conversations in state. */
function scanFigures(c: ScanCase): CompletenessFigure[] {
  const total = 10;
  const facts: ScanFacts = {
    total,
    served: 0,
    distinct: 0,
    withoutId: 0,
    overlapping: 0,
    holes: [],
    tailUnserved: 0,
    ...c.facts,
  };
  facts.served ||= facts.distinct + facts.withoutId;
  const s = {
    ctx: {
      state: stateOf({ [SCOPES.conversations]: c.held, [SCOPES.threadAt]: c.held, [SCOPES.contacts]: c.contacts ?? 0 }),
    },
    wants: { conversations: true, messages: true, contacts: true },
    listedGone: 0,
    threadsForbidden: 0,
    threadsNotFound: 0,
    threadsUnreadable: 0,
    contactsSeen: c.contacts ?? 0,
    ...c.settings,
  } as unknown as ScanSettings;
  return [...scanCompleteness(s, facts)].map((emit) => (emit as { figure: CompletenessFigure }).figure);
}

const scan = (stream: string, c: ScanCase) => (): CompletenessFigure =>
  scanFigures(c).find((f) => f.stream === stream) as CompletenessFigure;

const REPORT_SETTINGS = { reports: { start_date: '2026-03-01', lookback_days: 3 } } as ReportStreamSettings;

/** Ten days (2026-03-01..10) of two inboxes; inbox-2 holds `held2` of its days. */
function reportsFigure(held2: number, seen: Partial<Parameters<typeof reportsCompleteness>[3]> = {}) {
  const days = (n: number) => Array.from({ length: n }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`);
  const held: Record<string, string[]> = { [reportScope('inbox-1')]: days(10), [reportScope('inbox-2')]: days(held2) };
  const state: StateReader = {
    get: (scope, key) => (held[scope]?.includes(key) ? 'x' : undefined),
    keys: (scope) => held[scope] ?? [],
  };
  const ctx = { state, clock: { now: () => Date.parse('2026-03-10T12:00:00Z'), sleep: async () => {} } };
  return reportsCompleteness(ctx as never, REPORT_SETTINGS, ['inbox-1', 'inbox-2'], {
    gone: new Set(),
    forbidden: new Map(),
    unreadable: new Set(),
    ...seen,
  });
}

interface Pair {
  /** The run observed the cause: the reason explains `count`. */
  observed: () => CompletenessFigure;
  /** The same counts, nothing observed: no such reason, the difference unexplained. */
  unobserved: () => CompletenessFigure;
  count: number;
  /**
   * A surplus whose observation is the count itself: every contact embedded in a listed
   * conversation is held after the run, so contacts held beyond those seen are, by set
   * difference, contacts no listed conversation embeds. Its pair is a state without them.
   */
  surplus?: true;
}

const PAIRS: Record<ExplainedReason, Pair> = {
  // A listed item without an id (a rejected row) against one that simply never came.
  rejected: {
    observed: scan('conversations', { facts: { distinct: 9, withoutId: 1 }, held: 9 }),
    unobserved: scan('conversations', { facts: { distinct: 9 }, held: 9 }),
    count: 1,
  },
  // The last page placed its last item at 8 of 10 (a cap), against the same 8 served with no
  // tail seen (a page short mid-list: the arithmetic that used to call it a cap).
  past_search_cap: {
    observed: scan('conversations', { facts: { distinct: 8, tailUnserved: 2 }, held: 8 }),
    unobserved: scan('conversations', { facts: { distinct: 8 }, held: 8 }),
    count: 2,
  },
  // One conversation served again at a new position (one arrived ahead of the scan), against
  // the same repeat at a position the page before had served (pages that overlap).
  listing_shifted: {
    observed: scan('conversations', { facts: { distinct: 9, served: 10 }, held: 9 }),
    unobserved: scan('conversations', { facts: { distinct: 9, served: 10, overlapping: 1 }, held: 9 }),
    count: 1,
  },
  backfill_pending: {
    observed: scan('conversations', { facts: { distinct: 6, backfill: 'running' }, held: 6 }),
    unobserved: scan('conversations', { facts: { distinct: 6, backfill: 'complete' }, held: 6 }),
    count: 4,
  },
  threads_forbidden: {
    observed: scan('messages', { facts: { distinct: 10 }, held: 8, settings: { threadsForbidden: 2 } }),
    unobserved: scan('messages', { facts: { distinct: 10 }, held: 8 }),
    count: 2,
  },
  threads_not_found: {
    observed: scan('messages', { facts: { distinct: 10 }, held: 8, settings: { threadsNotFound: 2 } }),
    unobserved: scan('messages', { facts: { distinct: 10 }, held: 8 }),
    count: 2,
  },
  threads_unreadable: {
    observed: scan('messages', { facts: { distinct: 10 }, held: 8, settings: { threadsUnreadable: 2 } }),
    unobserved: scan('messages', { facts: { distinct: 10 }, held: 8 }),
    count: 2,
  },
  pages_unreadable: {
    observed: scan('conversations', { facts: { distinct: 7, unreadable: 3 }, held: 7 }),
    unobserved: scan('conversations', { facts: { distinct: 7 }, held: 7 }),
    count: 3,
  },
  // Negative: the state holds a conversation the listing did not list (its view answered, or no
  // deletion check ran), against a state that holds what was listed. A surplus, never a loss.
  kept_unlisted: {
    observed: scan('conversations', { facts: { total: 11, distinct: 10 }, held: 11 }),
    unobserved: scan('conversations', { facts: { total: 11, distinct: 11 }, held: 11 }),
    count: -1,
  },
  never_tombstoned: {
    observed: scan('contacts', { facts: { distinct: 10 }, held: 10, contacts: 4, settings: { contactsSeen: 3 } }),
    unobserved: scan('contacts', { facts: { distinct: 10 }, held: 10, contacts: 3, settings: { contactsSeen: 3 } }),
    count: -1,
    surplus: true,
  },
  inbox_gone: {
    observed: () => reportsFigure(6, { gone: new Set(['inbox-2']) }),
    unobserved: () => reportsFigure(6),
    count: 4,
  },
  inbox_forbidden: {
    observed: () => reportsFigure(6, { forbidden: new Map([['inbox-2', new Error('403')]]) }),
    unobserved: () => reportsFigure(6),
    count: 4,
  },
  days_unreadable: {
    observed: () => reportsFigure(9, { unreadable: new Set(['inbox-2|2026-03-10']) }),
    unobserved: () => reportsFigure(9),
    count: 1,
  },
};

const countOf = (figure: CompletenessFigure, reason: ExplainedReason) =>
  figure.explained.find((e) => e.reason === reason)?.count ?? 0;

describe('completeness reasons come from observations only', () => {
  it('every reason has its pair here', () => {
    expect(Object.keys(PAIRS).sort()).toEqual([...EXPLAINED_REASONS].sort());
  });

  for (const reason of EXPLAINED_REASONS) {
    it(`${reason}: set when the run observed its cause, and not for the same counts without it`, () => {
      const { observed, unobserved, count, surplus } = PAIRS[reason];
      const seen = observed();
      const unseen = unobserved();
      expect(countOf(seen, reason)).toBe(count);
      expect(countOf(unseen, reason)).toBe(0);
      if (surplus) {
        expect([seen.unexplained, unseen.unexplained]).toEqual([0, 0]);
        return;
      }
      // The same difference: explained in the one, left to `unexplained` in the other.
      expect(seen.expected - seen.live).toBe(unseen.expected - unseen.live);
      expect(unseen.unexplained - seen.unexplained).toBe(count);
    });
  }

  it('a hole mid-list stays unexplained even with a tail and repeats that could have been counted for it', () => {
    const [conversations] = scanFigures({
      facts: { distinct: 7, served: 8, tailUnserved: 1, holes: [{ from: 3, to: 6, missing: 2 }] },
      held: 7,
    });
    // 3 short: 2 in the hole (unexplained), then the tail (1); the repeat explains nothing left.
    expect(conversations).toMatchObject({
      explained: [{ reason: 'past_search_cap', count: 1 }],
      unexplained: 2,
      holes: [{ from: 3, to: 6, missing: 2 }],
    });
  });
});
