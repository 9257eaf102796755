import { afterEach, describe, expect, it } from 'vitest';
import { closeHarnesses, FixedWindowServer, harnessWith, settleAll } from './queue-harness.js';

afterEach(closeHarnesses);

describe('RequestQueue learning the window (fake clock, window not configured)', () => {
  it('learns it from a reset of X-RateLimit-Remaining, without a 429, then spends every later window whole', async () => {
    const h = harnessWith({ requestsPerMinute: 600, concurrency: 4, rateWindowSeconds: undefined });
    const server = new FixedWindowServer(20, 2_000);
    h.server = server;
    const t0 = h.clock.now();
    // A caller that asks one request at a time, every 300 ms (a paginated listing): the window resets
    // between two of them, at 2 s.
    for (let i = 0; i < 10; i++) {
      await settleAll<unknown>(h.clock, [h.send(`page${i}`), h.clock.sleep(300)]);
    }
    expect(h.queue.rateWindow()).toEqual({ ms: 2_000, source: 'learned' });
    // Then 100 at once: what is left of the current window, then each window at its very start.
    await settleAll(
      h.clock,
      Array.from({ length: 100 }, (_, i) => h.send(`r${i}`)),
    );
    expect(server.limited).toBe(0);
    expect(server.perWindow).toEqual([7, 20, 20, 20, 20, 20, 3]);
    const burst = h.starts.slice(10).map((s) => s.at - t0);
    expect([...new Set(burst)]).toEqual([3_000, 4_100, 6_100, 8_100, 10_100, 12_100]);
  });

  it('does not take a window others opened a moment before for its own, even when fewer than our requests in flight', async () => {
    const h = harnessWith({ requestsPerMinute: 600, concurrency: 4, rateWindowSeconds: undefined });
    const server = new FixedWindowServer(100, 10_000);
    h.server = server;
    const t0 = h.clock.now();
    // Three requests of another process, a second before ours: the first reply (count 4 of 4 in
    // flight) could be ours alone; the lowest count among our four replies (4) says it is not.
    for (let i = 0; i < 3; i++) server.other(t0 - 1_000);
    await settleAll(
      h.clock,
      Array.from({ length: 300 }, (_, i) => h.send(`r${i}`)),
    );
    // Learned from a window we opened (the second), not from the first: 10 s, not 9 s.
    expect(h.queue.rateWindow()).toEqual({ ms: 10_000, source: 'learned' });
    expect(server.perWindow).toEqual([100, 100, 100, 3]);
  });
});
