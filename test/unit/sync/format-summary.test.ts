import { describe, expect, it } from 'vitest';
import { TABLE_NAMES, type TableName } from '../../../src/output/tables.js';
import { completenessFigure } from '../../../src/streams/completeness.js';
import type { SyncSummary, TableCounts } from '../../../src/sync/run-sync.js';
import { formatSummary } from '../../../src/sync/summary/format-summary.js';

function summary(over: Partial<SyncSummary> = {}): SyncSummary {
  const tables = Object.fromEntries(TABLE_NAMES.map((t) => [t, { rows: 0, tombstones: 0, rejected: 0 }])) as Record<
    TableName,
    TableCounts
  >;
  return {
    run_id: '20260310T120000Z-abc123',
    status: 'succeeded',
    started_at: '2026-03-10T12:00:00.000Z',
    finished_at: '2026-03-10T12:02:05.000Z',
    duration_ms: 125_000,
    streams: ['conversations', 'users'],
    full_refresh: [],
    tables,
    sanitized_strings: 0,
    coerced_values: 0,
    requests: { requests: 42, byStatus: { '200': 41, '429': 1 }, retries: 1, rateLimited: 1, waitedMs: 3_000 },
    warnings: [],
    skipped_streams: [],
    failed_streams: [],
    conversations_scanned: 300,
    conversations_changed: 2,
    conversations_relisted: 0,
    messages_fetched: 2,
    forbidden_skipped: 0,
    unreadable_skipped: 0,
    listing_repairs: 0,
    listing_recovered: 0,
    completeness: [],
    ...over,
  };
}

describe('formatSummary', () => {
  it('says how many strings had NUL or a lone surrogate replaced, only when some had', () => {
    expect(formatSummary(summary())).not.toContain('sanitized');
    expect(formatSummary(summary({ sanitized_strings: 3 }))).toContain(
      'text sanitized: 3 strings had NUL or a lone surrogate, written as U+FFFD',
    );
  });

  it('says how many values were coerced into typed columns, only when some were', () => {
    expect(formatSummary(summary())).not.toContain('coerced');
    expect(formatSummary(summary({ coerced_values: 690 }))).toContain(
      'values coerced: 690 numbers or booleans sent as strings (or 0/1), read exactly',
    );
  });

  it('lists tables that wrote anything, requests, 429s, waiting time and scan counters', () => {
    const s = summary();
    s.tables.conversations = { rows: 3, tombstones: 1, rejected: 0 };
    const text = formatSummary(s, '_manifests/20260310T120000Z-abc123.json');
    expect(text).toContain(
      'sync 20260310T120000Z-abc123 succeeded in 2m05s (manifest _manifests/20260310T120000Z-abc123.json)',
    );
    // 3 lines written, 1 of them a tombstone: 2 changed rows, 1 tombstone.
    expect(text).toMatch(/conversations +2 +1 +0/);
    expect(text).not.toContain('messages ');
    expect(text).toContain('requests 42 (429s 1, retries 1, waited for rate budget 3s)');
    expect(text).toContain('conversations listed 300: 2 new or changed (rows written), threads fetched 2');
  });

  it('says where the output is, under the first line: the manifest is found there', () => {
    const text = formatSummary(summary(), '_manifests/20260310T120000Z-abc123.json', 'local directory /srv/out');
    expect(text.split('\n').slice(0, 2)).toEqual([
      'sync 20260310T120000Z-abc123 succeeded in 2m05s (manifest _manifests/20260310T120000Z-abc123.json)',
      '  output in local directory /srv/out',
    ]);
  });

  it('counts conversations as the table does, apart from threads fetched (a messages-only run writes no row)', () => {
    const s = summary({ conversations_changed: 53, messages_fetched: 53 });
    s.tables.conversations = { rows: 7, tombstones: 1, rejected: 0 };
    const text = formatSummary(s);
    expect(text).toMatch(/conversations +6 +1 +0/);
    expect(text).toContain('conversations listed 300: 6 new or changed (rows written), threads fetched 53');
  });

  it('says how many 429s were met by probes after a 429 without Retry-After, only when some were', () => {
    const requests = { requests: 50, byStatus: { '200': 45, '429': 5 }, retries: 5, rateLimited: 5, waitedMs: 7_000 };
    expect(formatSummary(summary({ requests: { ...requests, rateLimitProbes: 2 } }))).toContain(
      'requests 50 (429s 5, 2 of them probes, retries 5, waited for rate budget 7s)',
    );
    expect(formatSummary(summary({ requests: { ...requests, rateLimitProbes: 0 } }))).toContain(
      'requests 50 (429s 5, retries 5, waited for rate budget 7s)',
    );
  });

  it('says how much of the waiting was 429 pauses, only when there were some', () => {
    const requests = { requests: 50, byStatus: { '200': 45, '429': 5 }, retries: 5, rateLimited: 5, waitedMs: 70_000 };
    expect(formatSummary(summary({ requests: { ...requests, rateLimitPausedMs: 65_000 } }))).toContain(
      'requests 50 (429s 5, retries 5, waited for rate budget 1m10s, 1m05s of it paused by 429s)',
    );
    expect(formatSummary(summary({ requests: { ...requests, rateLimitPausedMs: 0 } }))).toContain(
      'requests 50 (429s 5, retries 5, waited for rate budget 1m10s)',
    );
  });

  it('never says a part of the wait larger than the wait: a run stopped 0.8 s into a 59 s pause', () => {
    // The figures of a run interrupted just after a 429 asked for 59 s: the queue counts the pause
    // whole when asked, the wait as it passes.
    const requests = {
      requests: 301,
      byStatus: { '200': 300, '429': 1 },
      retries: 1,
      rateLimited: 1,
      waitedMs: 814,
      rateLimitPausedMs: 59_102,
      rateLimitPauseLeftMs: 58_298,
    };
    const text = formatSummary(summary({ status: 'interrupted', requests }));
    expect(text).toContain(
      'requests 301 (429s 1, retries 1, waited for rate budget 814ms, 804ms of it paused by 429s; ' +
        'a 429 pause had 58s left when the run ended)',
    );
    // Without the pause's rest (a summary of an older version) a pause longer than the wait is not
    // a part of it: the two are said apart, as what they are.
    const { rateLimitPauseLeftMs: _left, ...older } = requests;
    expect(formatSummary(summary({ requests: { ...older, waitedMs: 502, rateLimitPausedMs: 58_000 } }))).toContain(
      'waited for rate budget 502ms; 429s asked for pauses of 58s)',
    );
    // A pause that passed while no request waited (the run was writing) is longer than the wait.
    expect(
      formatSummary(
        summary({ requests: { ...requests, waitedMs: 1_000, rateLimitPausedMs: 5_000, rateLimitPauseLeftMs: 0 } }),
      ),
    ).toContain('waited for rate budget 1s; 429 pauses lasted 5s, not all of it with a request waiting)');
  });

  it('says what the listing re-read and what answers were skipped as unreadable, only when there were some', () => {
    expect(formatSummary(summary())).not.toContain('listing repaired');
    expect(formatSummary(summary())).not.toContain('unreadable');
    const text = formatSummary(summary({ listing_repairs: 1, listing_recovered: 100, unreadable_skipped: 3 }));
    expect(text).toContain(
      '  listing repaired: 1 range(s) its pages showed missing re-read, 100 conversations found there',
    );
    expect(text).toContain('  unreadable answers: 3 skipped (threads, pages, report days or lists whose body');
  });

  it('says when nothing changed, names skipped streams and warnings, and what an interruption means', () => {
    const text = formatSummary(
      summary({
        status: 'interrupted',
        skipped_streams: [{ stream: 'users', reason: 'users skipped: 403' }],
        warnings: [
          { code: 'STREAM_SKIPPED', message: 'users skipped: 403' },
          { code: 'THREAD_NOT_FOUND', message: 'conversation x' },
        ],
      }),
    );
    expect(text).toContain('no rows written: nothing changed');
    expect(text).toContain('skipped users: users skipped: 403');
    expect(text).toContain('warning THREAD_NOT_FOUND: conversation x');
    expect(text.match(/users skipped/g)).toHaveLength(1);
    expect(text).toContain('interrupted: what was complete is committed');
  });

  it('prints the completeness line on every run: live/expected, what is explained, and whether anything is missing', () => {
    const none = formatSummary(summary({ streams: ['conversations', 'users'] }));
    expect(none).toContain('  completeness (live/expected): not measured: conversations, users');
    const complete = formatSummary(
      summary({
        completeness: [
          completenessFigure('conversations', 300, 250, { past_search_cap: 50 }),
          completenessFigure('users', 4, 4),
        ],
      }),
    );
    expect(complete).toContain(
      '  completeness (live/expected): conversations 250/300 (50 past_search_cap), users 4/4 — nothing missing',
    );
    const missing = formatSummary(
      summary({
        completeness: [completenessFigure('conversations', 300, 248, { past_search_cap: 50, kept_unlisted: -1 })],
      }),
    );
    expect(missing).toContain(
      'conversations 248/300 (50 past_search_cap, 1 more held: kept_unlisted; 3 unexplained) — INCOMPLETE: 3 missing; not measured: users',
    );
  });

  it('prints where a recent-first backfill stands, with the time left at this run’s pace', () => {
    const running = summary({ backfill: { status: 'running', done: 12_000, total: 100_000, eta_ms: 5 * 3_600_000 } });
    expect(formatSummary(running)).toContain(
      "  backfill: 12000 of 100000 conversations read, ~5h00m left at this run's pace; the next run goes on",
    );
    const complete = summary({ backfill: { status: 'complete', done: 100_000, total: 100_000 } });
    expect(formatSummary(complete)).toContain('  backfill complete: 100000 conversations read');
    expect(formatSummary(summary())).not.toContain('backfill');
  });

  it('names each failed stream with its reason, once, and ends with the partial outcome', () => {
    const redirect = { code: 'API_REDIRECT', message: 'GET /v1/holidays answered 302 to another origin: refused' };
    const server = { code: 'API_SERVER', message: 'POST /v1/search failed with status 500' };
    const text = formatSummary(
      summary({
        status: 'partial',
        streams: ['conversations', 'contacts', 'messages', 'holidays', 'users'],
        failed_streams: [
          { stream: 'holidays', ...redirect },
          { stream: 'conversations', ...server },
          { stream: 'contacts', ...server },
          { stream: 'messages', ...server },
        ],
        warnings: [
          { code: 'STREAM_FAILED', message: 'holidays failed (API_REDIRECT): …' },
          { code: 'LISTING_SHORT', message: 'short' },
        ],
        completeness: [completenessFigure('users', 4, 4)],
      }),
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe('sync 20260310T120000Z-abc123 partial in 2m05s');
    expect(lines.slice(-4)).toEqual([
      '  warning LISTING_SHORT: short',
      `  failed holidays (API_REDIRECT): ${redirect.message}`,
      `  failed conversations, contacts, messages (API_SERVER): ${server.message}`,
      '  partial: the run committed what it could, but some part failed (above); the next run retries it',
    ]);
    expect(text).toContain('not measured: conversations, contacts, messages, holidays');
    expect(text).not.toContain('STREAM_FAILED');
    expect(formatSummary(summary())).not.toMatch(/failed|partial/);
  });
});
