import { afterEach, describe, expect, it } from 'vitest';
import type { RawResponse } from '../../../src/api/errors/error-from-response.js';
import { closeHarnesses, type FakeServer, type Harness, harnessWith, ok, settleAll, status } from './queue-harness.js';

afterEach(closeHarnesses);

/**
 * A gateway in front of a deployment that sends no rate-limit headers: until
 * `until` it answers every request with a 429 that says nothing (no Retry-After,
 * no X-RateLimit-*); every answer takes 50 ms.
 */
function silentGateway(h: Harness, until: number): FakeServer {
  return {
    hit: (at: number) => async (): Promise<RawResponse> => {
      await h.clock.sleep(50);
      return at < until ? status(429) : ok();
    },
  };
}

/** [name, ms after t0] of every start. */
function startsOf(h: Harness, t0: number): Array<[string, number]> {
  return h.starts.map((s) => [s.name, s.at - t0]);
}

describe('RequestQueue after 429s that say nothing (fake clock)', () => {
  it('pauses every request for a second after one, sends the request that met it alone, then the rest', async () => {
    const h = harnessWith({ requestsPerMinute: 300, concurrency: 4, rateWindowSeconds: undefined });
    const t0 = h.clock.now();
    h.server = silentGateway(h, t0 + 1); // only the first requests, sent at t0, meet it
    const work = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => h.send(name));
    await settleAll(h.clock, work);
    // a–d at once and all refused; the pause is 1 s from the first refusal (50 ms), then 'a' goes
    // alone as the probe, and the others only once its answer is in.
    expect(startsOf(h, t0)).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 0],
      ['d', 0],
      ['a', 1_050],
      ['b', 1_100],
      ['c', 1_100],
      ['d', 1_100],
      ['e', 1_100],
      ['f', 1_150],
    ]);
    // Four 429s, none of them a probe's: the backoff cost nothing.
    expect(h.queue.stats()).toMatchObject({ rateLimited: 4, rateLimitProbes: 0, rateLimitPausedMs: 1_000 });
    // A gateway's 429s that say nothing are not the window's: no learning was paid for.
    expect(h.queue.stats().rateLimitLearning).toBe(0);
  });

  it('ends the pause as soon as a request sent with the refused one is taken: the refusal was that one alone', async () => {
    const h = harnessWith({ requestsPerMinute: 300, concurrency: 4, rateWindowSeconds: undefined });
    const t0 = h.clock.now();
    h.server = silentGateway(h, t0); // no blanket refusal: every request is taken, after 50 ms
    h.script('b', async () => {
      await h.clock.sleep(10);
      return status(429);
    });
    await settleAll(
      h.clock,
      ['a', 'b', 'c', 'd', 'e'].map((name) => h.send(name)),
    );
    // 'b' is refused at 10 ms; 'a', sent with it, is answered at 50 ms: the pause ends there.
    expect(startsOf(h, t0)).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 0],
      ['d', 0],
      ['b', 50],
      ['e', 50],
    ]);
    expect(h.queue.stats()).toMatchObject({ rateLimited: 1, rateLimitProbes: 0, rateLimitPausedMs: 40 });
  });

  it('doubles the pause while probes meet 429s, up to the window, and counts the probes 429s', async () => {
    const h = harnessWith({ requestsPerMinute: 600, concurrency: 1, rateWindowSeconds: 4 });
    const t0 = h.clock.now();
    h.server = silentGateway(h, t0 + 14_000);
    await settleAll(h.clock, [h.send('a'), h.send('b')]);
    // Pauses of 1, 2, 4, then 4 s (the window), each from the 429's arrival 50 ms after its send.
    expect(startsOf(h, t0)).toEqual([
      ['a', 0],
      ['a', 1_050],
      ['a', 3_100],
      ['a', 7_150],
      ['a', 11_200],
      ['a', 15_250],
      ['b', 15_300],
    ]);
    expect(h.queue.stats()).toMatchObject({ rateLimited: 5, rateLimitProbes: 4, rateLimitPausedMs: 15_000 });
  });

  it('starts the backoff afresh once a probe got through', async () => {
    const h = harnessWith({ requestsPerMinute: 600, concurrency: 1, rateWindowSeconds: undefined });
    const t0 = h.clock.now();
    h.script('a', status(429), status(429), ok());
    h.script('b', status(429), ok());
    await settleAll(h.clock, [h.send('a'), h.send('b')]);
    expect(startsOf(h, t0)).toEqual([
      ['a', 0],
      ['a', 1_000],
      ['a', 3_000],
      ['b', 3_000],
      ['b', 4_000],
    ]);
    expect(h.queue.stats()).toMatchObject({ rateLimited: 3, rateLimitProbes: 1 });
  });

  it('takes a 429 whose own X-RateLimit-Remaining shows room for another limiter: a second, not the window', async () => {
    const h = harnessWith({ requestsPerMinute: 600, concurrency: 1, rateWindowSeconds: 60 });
    const headers = (remaining: number) => ({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': String(remaining) });
    h.script('a', ok(headers(99)));
    h.script('b', status(429, headers(98)), ok(headers(97)));
    h.script('c', ok(headers(96)));
    const t0 = h.clock.now();
    await settleAll(h.clock, [h.send('a'), h.send('b'), h.send('c')]);
    expect(startsOf(h, t0)).toEqual([
      ['a', 0],
      ['b', 0],
      ['b', 1_000],
      ['c', 1_000],
    ]);
    expect(h.queue.stats()).toMatchObject({ rateLimited: 1, rateLimitProbes: 0 });
  });
});
