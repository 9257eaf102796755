import { afterEach, describe, expect, it } from 'vitest';
import { RequestQueue } from '../../../src/api/request-queue.js';
import { ConfigError } from '../../../src/errors.js';
import { closeHarnesses, harnessWith, maxStartsInAnySecond, ok, settleAll, status } from './queue-harness.js';

afterEach(closeHarnesses);

describe('RequestQueue pacing (fake clock)', () => {
  it('spaces starts evenly: never more than requests_per_minute / 60 in any second', async () => {
    const h = harnessWith({ requestsPerMinute: 600, concurrency: 4 });
    const done = settleAll(
      h.clock,
      Array.from({ length: 100 }, (_, i) => h.send(`r${i}`)),
    );
    await done;
    const times = h.starts.map((s) => s.at);
    expect(times).toHaveLength(100);
    expect(maxStartsInAnySecond(times)).toBeLessThanOrEqual(10);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    const spacing = 100 / 0.98; // 600/min less the 2% margin (60 s window)
    // (epoch milliseconds as doubles carry ~0.0002 ms of rounding)
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(spacing - 1e-3);
    // Paced, not slower: 99 gaps of one spacing.
    expect((times.at(-1) as number) - (times[0] as number)).toBeCloseTo(99 * spacing, 0);
    expect(h.queue.stats().waitedMs).toBeGreaterThan(0);
  });

  it('does not let late timers add up: the schedule is kept, and still no second holds more than the rate', async () => {
    const h = harnessWith({ requestsPerMinute: 600, concurrency: 4 });
    h.clock.lateness = 7; // every timer 7 ms late
    const done = settleAll(
      h.clock,
      Array.from({ length: 60 }, (_, i) => h.send(`r${i}`)),
    );
    await done;
    const times = h.starts.map((s) => s.at);
    const spacing = 100 / 0.98;
    // Measured from each late start, 59 gaps would take 59 × (spacing + 7) ms.
    expect((times.at(-1) as number) - (times[0] as number)).toBeLessThan(59 * spacing + 8);
    expect(maxStartsInAnySecond(times)).toBeLessThanOrEqual(10);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const h = harnessWith({ requestsPerMinute: 60_000, concurrency: 3 });
    const slow = async () => {
      await h.clock.sleep(5_000);
      return ok();
    };
    for (let i = 0; i < 12; i++) h.script(`s${i}`, slow);
    const done = settleAll(
      h.clock,
      Array.from({ length: 12 }, (_, i) => h.send(`s${i}`)),
    );
    await done;
    expect(h.maxInFlight).toBe(3);
  });
});

describe('RequestQueue adaptive pacing (fake clock)', () => {
  it('spreads a low X-RateLimit-Remaining over the rest of the window', async () => {
    const h = harnessWith({ requestsPerMinute: 300, rateWindowSeconds: 60 });
    h.script('a', ok({ 'x-ratelimit-remaining': '3' }));
    const first = h.send('a');
    await h.clock.run();
    await first;
    const rest = ['b', 'c', 'd'].map((n) => h.send(n));
    await h.clock.run();
    await Promise.all(rest);
    const [a, b, c, d] = h.starts.map((s) => s.at - (h.starts[0]?.at as number));
    // 3 left, 1 kept in reserve: b and c share the 60 s window evenly, d waits for the next one.
    // (Plain pacing at 300/min would have started all three within a second.)
    expect([a, b, c, d]).toEqual([0, 20_000, 40_000, 60_000]);
  });

  it('holds back when another client on the IP is spending the budget', async () => {
    const h = harnessWith({ requestsPerMinute: 300, rateWindowSeconds: 60 });
    // 1 request of ours, yet 150 of 300 spent: someone else is using the window.
    h.script('a', ok({ 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '150' }));
    const first = h.send('a');
    await h.clock.run();
    await first;
    const second = h.send('b');
    await h.clock.run();
    await second;
    const [a, b] = h.starts.map((s) => s.at) as [number, number];
    expect(b - a).toBeGreaterThan(204); // slower than plain pacing (60 000 / 294)
  });

  it('waits for the window end when nothing is left, without a 429', async () => {
    const h = harnessWith({ requestsPerMinute: 300, rateWindowSeconds: 60 });
    h.script('a', ok({ 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '0' }));
    const first = h.send('a');
    await h.clock.run();
    await first;
    const second = h.send('b');
    await h.clock.run();
    await second;
    const [a, b] = h.starts.map((s) => s.at) as [number, number];
    expect(b - a).toBe(60_000);
    expect(h.queue.stats().rateLimited).toBe(0);
  });
});

describe('RequestQueue lifecycle', () => {
  it('rejects with the signal reason when aborted while queued, without sending', async () => {
    const h = harnessWith({ requestsPerMinute: 60 });
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
    const h = harnessWith({ requestsPerMinute: 60 });
    const first = h.send('a');
    const second = h.send('b').catch((e: unknown) => e);
    await h.clock.settle();
    h.queue.close();
    await first;
    expect(await second).toMatchObject({ name: 'AbortError' });
    await expect(h.send('c')).rejects.toMatchObject({ name: 'AbortError' });
    expect(h.clock.pendingTimers).toBe(0);
  });

  it('validates its options with exact messages', () => {
    expect(() => new RequestQueue({ concurrency: 0, requestsPerMinute: -1 })).toThrow(ConfigError);
    try {
      new RequestQueue({ concurrency: 1.5 });
    } catch (error) {
      expect((error as ConfigError).issues).toEqual([
        { path: 'concurrency', message: 'Expected `concurrency` to be a whole number from 1 to 64, got `1.5`' },
      ]);
    }
  });
});
