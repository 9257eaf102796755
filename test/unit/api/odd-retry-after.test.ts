import { afterEach, describe, expect, it } from 'vitest';
import type { RawResponse } from '../../../src/api/errors/error-from-response.js';
import { RETRY_AFTER_FLOOR_MS, readRetryAfter } from '../../../src/api/queue/rate-limit/read-retry-after.js';
import { closeHarnesses, type Harness, harnessWith, ok, settleAll, status } from './queue-harness.js';

afterEach(closeHarnesses);

const NOW = Date.parse('2026-07-30T10:00:00Z');
const CEILING = 600_000;

describe('readRetryAfter: a floor, a ceiling, and what falls outside them', () => {
  it('obeys delay-seconds and HTTP dates between the floor and the ceiling, fractions included', () => {
    expect(readRetryAfter('1', NOW, CEILING)).toEqual({ kind: 'wait', ms: 1_000, isDate: false });
    expect(readRetryAfter(' 1.5 ', NOW, CEILING)).toEqual({ kind: 'wait', ms: 1_500, isDate: false });
    expect(readRetryAfter('600', NOW, CEILING)).toEqual({ kind: 'wait', ms: 600_000, isDate: false });
    expect(readRetryAfter('Thu, 30 Jul 2026 10:00:45 GMT', NOW, CEILING)).toEqual({
      kind: 'wait',
      ms: 45_000,
      isDate: true,
    });
  });

  it('reads 0, a fraction below a second, a negative value, a past date and garbage as saying nothing usable', () => {
    expect(readRetryAfter(undefined, NOW, CEILING)).toEqual({ kind: 'absent' });
    expect(readRetryAfter(' ', NOW, CEILING)).toEqual({ kind: 'absent' });
    expect(readRetryAfter('0', NOW, CEILING)).toEqual({ kind: 'unusable', why: 'below the 1 s floor' });
    expect(readRetryAfter('0.25', NOW, CEILING)).toEqual({ kind: 'unusable', why: 'below the 1 s floor' });
    expect(readRetryAfter('-5', NOW, CEILING)).toEqual({ kind: 'unusable', why: 'negative' });
    expect(readRetryAfter('Thu, 30 Jul 2026 09:59:00 GMT', NOW, CEILING)).toEqual({
      kind: 'unusable',
      why: 'a date less than 1 s ahead',
    });
    expect(readRetryAfter('soon', NOW, CEILING)).toEqual({ kind: 'unusable', why: 'unreadable' });
    expect(readRetryAfter('12abc', NOW, CEILING)).toEqual({ kind: 'unusable', why: 'unreadable' });
  });

  it('does not believe a wait above the ceiling', () => {
    expect(readRetryAfter('601', NOW, CEILING)).toEqual({ kind: 'unusable', why: 'above the 600 s ceiling' });
    expect(readRetryAfter('86400000', NOW, CEILING).kind).toBe('unusable');
    expect(RETRY_AFTER_FLOOR_MS).toBe(1_000);
  });
});

/** A server that refuses every request until `until` with a 429 carrying `retryAfter`; answers take 20 ms. */
function refusingUntil(h: Harness, until: number, retryAfter: string) {
  h.server = {
    hit: (at: number) => async (): Promise<RawResponse> => {
      await h.clock.sleep(20);
      return at < until ? status(429, { 'retry-after': retryAfter }) : ok();
    },
  };
}

describe('RequestQueue: every 429 is a wait, whatever its Retry-After says (fake clock)', () => {
  for (const value of ['0', '-1', '0.2', '86400000', 'Thu, 01 Jan 2026 00:00:00 GMT', 'later']) {
    it(`Retry-After "${value}" during a 3 s spell of 429s: a few probes, not a burst, and every request answered`, async () => {
      const h = harnessWith({ requestsPerMinute: 300, concurrency: 4, rateWindowSeconds: undefined });
      const t0 = h.clock.now();
      refusingUntil(h, t0 + 3_000, value);
      const work = Array.from({ length: 8 }, (_, i) => h.send(`r${i}`));
      const answers = await settleAll(h.clock, work);
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      const limited = h.queue.stats().rateLimited;
      // The four first requests, then probes at 1 s and 3 s (the pause doubling): no more.
      expect(limited).toBeLessThanOrEqual(6);
      // Nothing was sent again sooner than a second after a refusal.
      const times = [...new Set(h.starts.filter((s) => s.at < t0 + 3_000).map((s) => s.at))];
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1_000);
    });
  }

  it('a server that refuses for ten minutes is waited for, probe by probe, and the request still succeeds', async () => {
    const h = harnessWith({ requestsPerMinute: 300, concurrency: 2, rateWindowSeconds: 60 });
    const t0 = h.clock.now();
    refusingUntil(h, t0 + 600_000, '0');
    const work = [h.send('a'), h.send('b')];
    const answers = await settleAll(h.clock, work);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const stats = h.queue.stats();
    // The probe backoff doubles to the 60 s window, then probes once a window: about 15 probes in 10 minutes.
    expect(stats.rateLimited).toBeLessThanOrEqual(20);
    expect(stats.rateLimitedForMs).toBe(0);
    expect(h.clock.now() - t0).toBeLessThanOrEqual(600_000 + 60_000 + 100);
  });

  it('says how long the 429s in a row have lasted while they last', async () => {
    const h = harnessWith({ requestsPerMinute: 300, concurrency: 1, rateWindowSeconds: 60 });
    h.script('a', status(429, { 'retry-after': '5' }), status(429, { 'retry-after': '5' }), ok());
    const result = h.send('a');
    await h.clock.run(() => h.starts.length === 2);
    await h.clock.settle();
    expect(h.queue.stats().rateLimitedForMs).toBe(5_000);
    await h.clock.run();
    await result;
    expect(h.queue.stats().rateLimitedForMs).toBe(0);
  });
});
