import { afterEach, describe, expect, it } from 'vitest';
import { queueOptionIssues } from '../../../src/api/queue/resolve-queue-options.js';
import { closeHarnesses, FixedWindowServer, harnessWith, ok, settleAll, status } from './queue-harness.js';

afterEach(closeHarnesses);

/** Most starts of ours inside any span of `windowMs` (any alignment: stricter than the server's windows). */
function maxStartsInAnySpan(times: number[], windowMs: number): number {
  let max = 0;
  for (let i = 0; i < times.length; i++) {
    let n = 0;
    for (let j = i; j < times.length && (times[j] as number) < (times[i] as number) + windowMs; j++) n++;
    max = Math.max(max, n);
  }
  return max;
}

describe('RequestQueue rate window (fake clock, a fixed-window server)', () => {
  it('spends the window at once, then waits for its end instead of meeting a 429', async () => {
    const h = harnessWith({ requestsPerMinute: 600, concurrency: 4, rateWindowSeconds: 10 });
    const server = new FixedWindowServer(100, 10_000);
    h.server = server;
    await settleAll(
      h.clock,
      Array.from({ length: 250 }, (_, i) => h.send(`r${i}`)),
    );
    const t0 = h.starts[0]?.at as number;
    const offsets = h.starts.map((s) => s.at - t0);
    expect(server.limited).toBe(0);
    expect(h.queue.stats().rateLimited).toBe(0);
    // The whole window (nobody else is on the IP), each window's at its very start.
    expect(server.perWindow).toEqual([100, 100, 50]);
    expect(offsets.filter((t) => t === 0)).toHaveLength(100);
    expect(offsets.filter((t) => t === 10_000)).toHaveLength(100);
    expect(offsets.at(-1)).toBe(20_000);
  });

  it('never takes more than its share of a window, even with room on the server', async () => {
    // 300 per minute is 50 per 10 s window; the server would allow 100.
    const h = harnessWith({ requestsPerMinute: 300, concurrency: 4, rateWindowSeconds: 10 });
    const server = new FixedWindowServer(100, 10_000);
    h.server = server;
    await settleAll(
      h.clock,
      Array.from({ length: 120 }, (_, i) => h.send(`r${i}`)),
    );
    expect(server.perWindow).toEqual([50, 50, 20]);
    expect(
      maxStartsInAnySpan(
        h.starts.map((s) => s.at),
        10_000,
      ),
    ).toBe(50);
    expect(server.limited).toBe(0);
  });

  it('learns a window that is not configured from one 429, then meets no other', async () => {
    // X-RateLimit-Limit says 20: per 10 s here, not per minute.
    const h = harnessWith({ requestsPerMinute: 600, concurrency: 4, rateWindowSeconds: undefined });
    const server = new FixedWindowServer(20, 10_000);
    h.server = server;
    expect(h.queue.rateWindow()).toEqual({ ms: 60_000, source: 'assumed' });
    await settleAll(
      h.clock,
      Array.from({ length: 100 }, (_, i) => h.send(`r${i}`)),
    );
    expect(h.queue.rateWindow()).toEqual({ ms: 10_000, source: 'learned' });
    expect(server.limited).toBe(1);
    // The first window is spent, then the probe meets the 429; after the pause, every window whole.
    expect(server.perWindow).toEqual([20, 20, 20, 20, 20]);
    const t0 = h.starts[0]?.at as number;
    expect((h.starts.at(-1)?.at as number) - t0).toBe(40_000);
  });

  it('pauses for the rest of the window after a 429 without Retry-After that says the window is spent', async () => {
    const h = harnessWith({ requestsPerMinute: 600, concurrency: 1, rateWindowSeconds: 10 });
    h.script('a', ok({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99' }));
    h.script('b', status(429, { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0' }), ok());
    const first = h.send('a');
    await h.clock.run();
    await first;
    h.clock.sleep(4_000).then(() => h.send('b'));
    const t0 = h.starts[0]?.at as number;
    await h.clock.run(() => h.starts.length === 3);
    // The window opened with 'a' and ends 10 s later: 'b' is retried then, not a whole window after the 429.
    expect(h.starts.map((s) => [s.name, s.at - t0])).toEqual([
      ['a', 0],
      ['b', 4_000],
      ['b', 10_000],
    ]);
    expect(h.queue.stats()).toMatchObject({ rateLimited: 1, rateLimitProbes: 0 });
  });

  it('spreads its starts over the window when another client on the IP is spending the budget', async () => {
    const h = harnessWith({ requestsPerMinute: 600, concurrency: 4, rateWindowSeconds: 10 });
    const server = new FixedWindowServer(100, 10_000);
    h.server = server;
    // The other client sends one request every 200 ms (half the budget), before and while we run.
    let othersOk = 0;
    let othersLimited = 0;
    let stop = false;
    const other = async () => {
      while (!stop) {
        if (server.other(h.clock.now())) othersOk += 1;
        else othersLimited += 1;
        await h.clock.sleep(200);
      }
    };
    void other();
    await h.clock.run(() => h.clock.now() - Date.parse('2026-07-30T10:00:00Z') >= 3_000);
    await settleAll(
      h.clock,
      Array.from({ length: 120 }, (_, i) => h.send(`r${i}`)),
    );
    stop = true;
    expect(h.queue.stats().rateLimited).toBe(0);
    expect(othersLimited).toBe(0);
    expect(othersOk).toBeGreaterThan(0);
    // Spread, not burst: no second of ours holds more than a fifth of the window's budget.
    expect(
      maxStartsInAnySpan(
        h.starts.map((s) => s.at),
        1_000,
      ),
    ).toBeLessThanOrEqual(20);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const h = harnessWith({ requestsPerMinute: 60_000, concurrency: 3 });
    const slow = async () => {
      await h.clock.sleep(5_000);
      return ok();
    };
    for (let i = 0; i < 12; i++) h.script(`s${i}`, slow);
    await settleAll(
      h.clock,
      Array.from({ length: 12 }, (_, i) => h.send(`s${i}`)),
    );
    expect(h.maxInFlight).toBe(3);
  });
});

describe('RequestQueue lifecycle', () => {
  it('rejects with the signal reason when aborted while queued, without sending', async () => {
    const h = harnessWith({ requestsPerMinute: 60, concurrency: 1 });
    h.script('a', ok({ 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0' }));
    const controller = new AbortController();
    const first = h.send('a');
    const second = h.send('b', { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort(new Error('stop'));
    await h.clock.run();
    await first;
    expect(((await second) as Error).message).toBe('stop');
    expect(h.starts.map((s) => s.name)).toEqual(['a']);
  });

  it('drain() resolves once every request (retries included) has settled', async () => {
    const h = harnessWith();
    h.script('a', status(500), ok());
    let settled = 0;
    for (const n of ['a', 'b', 'c']) void h.send(n).then(() => settled++);
    let drained = false;
    void h.queue.drain().then(() => {
      drained = true;
    });
    await h.clock.run(() => drained);
    expect(drained).toBe(true);
    expect(settled).toBe(3);
  });

  it('close() rejects queued requests and refuses new ones', async () => {
    const h = harnessWith({ requestsPerMinute: 60, concurrency: 1 });
    h.script('a', ok({ 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0' }));
    const first = h.send('a');
    const second = h.send('b').catch((e: unknown) => e);
    await h.clock.settle();
    h.queue.close();
    await first;
    expect(await second).toMatchObject({ name: 'AbortError' });
    await expect(h.send('c')).rejects.toMatchObject({ name: 'AbortError' });
    expect(h.clock.pendingTimers).toBe(0);
  });

  it('names every bad option with an exact message', () => {
    expect(queueOptionIssues({ concurrency: 1.5, rateWindowSeconds: 0 })).toEqual([
      { path: 'concurrency', message: 'Expected `concurrency` to be a whole number from 1 to 64, got `1.5`' },
      { path: 'rateWindowSeconds', message: 'Expected `rateWindowSeconds` to be a number from 1 to 86400, got `0`' },
    ]);
    expect(queueOptionIssues({ requestsPerMinute: 100_000, concurrency: 64, rateWindowSeconds: 86_400 })).toEqual([]);
    expect(queueOptionIssues({ requestsPerMinute: 100_001 }).map((i) => i.path)).toEqual(['requestsPerMinute']);
  });
});
