import { afterEach, describe, expect, it } from 'vitest';
import { RequestQueue } from '../../../src/api/queue/request-queue.js';
import { STUCK_PAGE } from '../../../src/sandbox/store/wrong-shape.js';
import { conversationIds, type countedSync, expectOutputEqualsApi } from './quirk-harness.js';
import { expectEachKeyOnce, expectExplained, mutate, succeededSync, syncChangeSync, tombstones } from './quirk-runs.js';
import { type SyncEnv, startSyncEnv } from './support.js';

/**
 * The connector against answers that used to end a run (docs/sandbox.md,
 * "Quirks"; docs/streams.md, "Deployments that differ"): 429s whose
 * Retry-After says something odd, 200s of the wrong shape, same-origin
 * redirects, a listing whose page size changes mid-scan (or differs by page
 * number). Each is synced, synced
 * again quietly, changed through the API and synced once more: every run
 * succeeds, writes each key once, tombstones nothing falsely, and the union of
 * the output equals the API's own state.
 */

let env: SyncEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

async function start(quirks: string, conversations = 40): Promise<SyncEnv> {
  env = await startSyncEnv({ seed: 41, conversations, quirks });
  return env;
}

const queues: RequestQueue[] = [];
afterEach(() => {
  for (const queue of queues.splice(0)) queue.close();
});

/** A run's own queue with the default number of retries, whose backoffs take milliseconds. */
function quickRetries(): RequestQueue {
  const queue = new RequestQueue({
    requestsPerMinute: 100_000,
    concurrency: 8,
    retry: { baseDelayMs: 5, maxDelayMs: 40 },
  });
  queues.push(queue);
  return queue;
}

function warnings(run: Awaited<ReturnType<typeof countedSync>>, code: string): string[] {
  return run.result.summary.warnings.filter((w) => w.code === code).map((w) => w.message);
}

describe('rougher answers: each case ends in a succeeded run whose output equals the API', () => {
  it('odd-retry-after: spells of 429s saying 0, -1, 0.4, a day, a past date or garbage are waited out, not given up on', async () => {
    const e = await start('odd-retry-after:15');
    const { first, quiet, second } = await syncChangeSync(e);
    const runs = [first, quiet, second];
    const requests = runs.reduce((n, r) => n + r.requests, 0);
    // A spell begins at every 15th request unless one is still on: seven multiples of 15 give six
    // spells or more over the three runs, each value met at least once. The runs' own work is about
    // 104 requests, and every spell adds a 429 or more (how many depends on timing).
    expect(requests).toBeGreaterThanOrEqual(7 * 15);
    for (const run of runs) {
      const r = run.result.summary.requests;
      // Every 429 the sandbox sent was waited for, retried and counted; none failed a request.
      expect(r.rateLimited).toBe(run.limited);
      expect(r.retries).toBe(run.limited);
      // Waits, not bursts: a 1 s spell costs a few 429s (the requests in flight, a probe), never dozens.
      expect(run.limited).toBeLessThanOrEqual(8 * Math.ceil(run.requests / 15));
    }
    // And waited: each spell's 429 holds every request for about a second. A pause ends early only
    // when a request sent after the refused one is answered (the server takes requests again), and
    // requests in flight may be answered out of order, so a spell's pause may be cut to nothing;
    // not half of six or more.
    const paused = runs.reduce((ms, run) => ms + (run.result.summary.requests.rateLimitPausedMs ?? 0), 0);
    expect(paused).toBeGreaterThanOrEqual(3_000);
    expect(second.requests - second.limited).toBeLessThanOrEqual(quiet.requests - quiet.limited + 3);
    expectEachKeyOnce(e, second.result.summary.run_id);
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expectOutputEqualsApi(e, { trashShown: true });
  });

  it('wrong-shape: a 200 {"data": null} for a thread, a page or a report day is asked again; each row written once', async () => {
    const e = await start('wrong-shape');
    const { first, quiet, second } = await syncChangeSync(e);
    const r1 = first.result.summary;
    // Every thread, list page and report day answered wrongly once, and was asked again once.
    expect(r1.messages_fetched).toBeGreaterThan(0);
    expect(r1.requests.retries).toBeGreaterThan(r1.messages_fetched);
    expect(r1.unreadable_skipped).toBe(0);
    for (const run of [first, quiet, second]) {
      expectEachKeyOnce(e, run.result.summary.run_id);
      expectExplained(run);
    }
    // The changed threads, each asked twice (a new version answers wrongly once more).
    expect(second.threads).toBe(6);
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expectOutputEqualsApi(e, { trashShown: true });
  });

  it('stuck-wrong-shape: a thread, a list page and a report day that stay wrong skip only themselves, and are read next run', async () => {
    // Over 200 conversations of the admin's organization: page 2 of 100 is mid-list and full.
    const e = await start('stuck-wrong-shape', 260);
    const all = conversationIds(e);
    expect(all.length).toBeGreaterThan(200);
    // The default five retries, with backoffs of milliseconds instead of seconds: the same answers, quicker.
    const first = await succeededSync(e, { queue: quickRetries() });
    const s1 = first.result.summary;
    expect(s1.unreadable_skipped).toBe(3);
    expect(warnings(first, 'THREAD_UNREADABLE')).toHaveLength(1);
    expect(warnings(first, 'PAGE_UNREADABLE')).toEqual([
      expect.stringContaining(`page ${STUCK_PAGE} (100 conversations)`),
    ]);
    expect(warnings(first, 'REPORT_DAY_UNREADABLE')).toHaveLength(1);
    // Counted in the completeness figures, explained: nothing INCOMPLETE, nothing tombstoned.
    expectExplained(first);
    const figure = (stream: string) => s1.completeness.find((f) => f.stream === stream);
    expect(figure('conversations')?.explained).toContainEqual({ reason: 'pages_unreadable', count: 100 });
    expect(figure('messages')?.explained).toEqual(
      expect.arrayContaining([
        { reason: 'pages_unreadable', count: 100 },
        { reason: 'threads_unreadable', count: 1 },
      ]),
    );
    expect(figure('reports')?.explained).toEqual([{ reason: 'days_unreadable', count: 1 }]);
    expect(tombstones(e, s1.run_id)).toBe(0);

    // The next run reads what the first skipped: the page's conversations, the thread and the day.
    const next = await succeededSync(e, { queue: quickRetries() });
    const s2 = next.result.summary;
    expect(s2.unreadable_skipped).toBe(0);
    expect(s2.tables.conversations.rows).toBe(100);
    expect(next.threads).toBe(101);
    expect(s2.tables.report_productivity_daily.rows).toBeGreaterThanOrEqual(1);
    expectExplained(next);
    expect(s2.completeness.every((f) => f.explained.length === 0)).toBe(true);

    await mutate(e, all);
    const second = await succeededSync(e, { queue: quickRetries() });
    expect(second.threads).toBe(3);
    for (const run of [first, next, second]) expectEachKeyOnce(e, run.result.summary.run_id);
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expectOutputEqualsApi(e, { trashShown: true });
  });

  it('redirects: same-origin 301, 307 and 308 answers on reads are followed; the output equals the API', async () => {
    const e = await start('redirects');
    const { first, quiet, second } = await syncChangeSync(e);
    const stats = e.sandbox.stats().by_status;
    for (const status of ['301', '307', '308']) expect(stats[status] ?? 0, status).toBeGreaterThan(0);
    // One redirect per list request of the redirected paths, and nothing else extra.
    expect(second.requests).toBeLessThanOrEqual(quiet.requests + 3);
    for (const run of [first, quiet, second]) {
      expectEachKeyOnce(e, run.result.summary.run_id);
      expectExplained(run);
    }
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expectOutputEqualsApi(e, { trashShown: true });
  });

  for (const [conversations, where] of [
    [260, 'a tail no link reaches'],
    [500, 'a range mid-list'],
  ] as const) {
    it(`page-size-drift (${where}): the listing re-reads what the larger pages skipped, and ends complete`, async () => {
      const e = await start('page-size-drift', conversations);
      const all = conversationIds(e);
      const { first, quiet, second } = await syncChangeSync(e);
      for (const run of [first, quiet, second]) {
        const s = run.result.summary;
        // Pages 1 and 2 at 100, then 150 from page 3: positions 201-300 are in no page the links name
        // (with fewer than 300, page 3 is past the new last page: the tail from 201 is in none).
        expect(s.listing_repairs).toBe(1);
        expect(s.listing_recovered).toBe(Math.min(100, all.length - 200));
        expectExplained(run);
        expectEachKeyOnce(e, s.run_id);
      }
      expect(first.result.summary.tables.conversations.rows).toBe(all.length);
      expect(second.threads).toBe(3);
      expect(tombstones(e, second.result.summary.run_id)).toBe(0);
      expectOutputEqualsApi(e, { trashShown: true });
    });
  }

  it('canary-pages: a hole no re-read at the served size reaches is read at another page number, never called a cap', async () => {
    // 100 a page on odd pages, 120 on even ones: page 2 starts at 121 and is the last, so
    // 101-120 are in no page. Page 1 asked at 120 comes back at 100, page 2 asked at 100 at 120:
    // before, the run ended with 20 "past_search_cap" and nothing missing.
    const e = await start('canary-pages', 260);
    const all = conversationIds(e);
    expect(all.length).toBeGreaterThan(120);
    expect(all.length).toBeLessThanOrEqual(240);
    const { first, quiet, second } = await syncChangeSync(e);
    for (const run of [first, quiet, second]) {
      const s = run.result.summary;
      expect([s.listing_repairs, s.listing_recovered]).toEqual([1, 20]);
      const figure = s.completeness.find((f) => f.stream === 'conversations');
      expect(figure?.explained.map((x) => x.reason)).not.toContain('past_search_cap');
      expectExplained(run);
      expectEachKeyOnce(e, s.run_id);
    }
    expect(first.result.summary.tables.conversations.rows).toBe(all.length);
    expect(second.threads).toBe(3);
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expectOutputEqualsApi(e, { trashShown: true });
  });
});
