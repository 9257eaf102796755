import { describe, expect, it } from 'vitest';
import type { RequestStats } from '../../../src/api/index.js';
import { ProgressTracker } from '../../../src/sync/progress-tracker.js';
import { RequestTimeline } from '../../../src/sync/request-timeline.js';

describe('ProgressTracker: waiting for the rate window', () => {
  it('tells a wait for the window from a 429 pause, and how long is left from when the window opened', () => {
    const stats: RequestStats = { requests: 0, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 };
    const tracker = new ProgressTracker(
      [],
      'run',
      0,
      300,
      () => ({ ...stats }),
      () => 10_000,
    );
    const at = (t: number, over: Partial<RequestStats>) => {
      Object.assign(stats, over);
      return tracker.snapshot(t);
    };
    expect(at(0, {}).waiting_for_window).toBeUndefined();
    // Requests flow for 3 s, then are held back: the window opened at 0 and ends at 10 s.
    expect(at(1000, { requests: 20 }).waiting_for_window).toBeUndefined();
    expect(at(3000, { requests: 50, waitedMs: 0 }).waiting_for_window).toBeUndefined();
    expect(at(4000, { waitedMs: 1000 }).waiting_for_window).toEqual({ left_ms: 6000 });
    expect(at(9000, { waitedMs: 6000 }).waiting_for_window).toEqual({ left_ms: 1000 });
    // Requests move again at 10 s: a new window, no wait.
    expect(at(10_000, { requests: 60, waitedMs: 6000 }).waiting_for_window).toBeUndefined();
    // A 429 pause is said as such, not as a window wait; when it ends a window opened.
    const paused = at(11_000, { rateLimited: 1, waitedMs: 7000, rateLimitPauseLeftMs: 4000 });
    expect(paused.waiting_for_window).toBeUndefined();
    expect(paused.paused_ms_left).toBe(4000);
    expect(at(15_000, { requests: 70, waitedMs: 11_000, rateLimitPauseLeftMs: 0 }).waiting_for_window).toBeUndefined();
    expect(at(16_000, { waitedMs: 12_000 }).waiting_for_window).toEqual({ left_ms: 9000 });
    // Past the estimated end and still waiting: the wait is said, its length not guessed.
    expect(at(26_000, { waitedMs: 22_000 }).waiting_for_window).toEqual({});
  });
});

describe('RequestTimeline', () => {
  it('counts requests and 429s per window from the first request', () => {
    const timeline = new RequestTimeline(1_000);
    timeline.sample(1_400, { requests: 0, rateLimited: 0 });
    timeline.sample(1_600, { requests: 4, rateLimited: 0 });
    timeline.sample(3_000, { requests: 10, rateLimited: 0 });
    timeline.sample(3_900, { requests: 10, rateLimited: 0 });
    timeline.sample(6_600, { requests: 12, rateLimited: 1 });
    timeline.sample(11_600, { requests: 20, rateLimited: 1 });
    // First request in the slot of 1 500 ms: windows [1 500, 6 500), [6 500, 11 500), [11 500, …).
    expect(timeline.windows(5_000)).toEqual([
      { requests: 10, rate_limited: 0 },
      { requests: 2, rate_limited: 1 },
      { requests: 8, rate_limited: 0 },
    ]);
    expect(timeline.windows(60_000)).toEqual([{ requests: 20, rate_limited: 1 }]);
  });
});
