import { describe, expect, it } from 'vitest';
import { WindowBudget } from '../../../src/api/queue/rate-limit/window-budget.js';

const LIMIT = 100;

/** One request of ours: started now, answered `rtt` ms later with `remaining`. */
function exchange(budget: WindowBudget, at: number, remaining: number, limit = LIMIT, rtt = 10): void {
  const seq = budget.noteStart(at);
  budget.observe({ seq, remaining, limit, sentAt: at, receivedAt: at + rtt });
}

describe('WindowBudget', () => {
  it('learns the window from a reset of X-RateLimit-Remaining between two replies, without a 429', () => {
    const budget = new WindowBudget({ requestsPerMinute: 600, concurrency: 4 });
    expect(budget.window).toEqual({ ms: 60_000, source: 'assumed' });
    exchange(budget, 0, 99); // opened by us: between 0 and 10
    exchange(budget, 9_000, 98); // still in it at 9 s
    exchange(budget, 10_050, 99); // a new one: it lasted more than 8.99 s and at most 10.06 s
    expect(budget.window).toEqual({ ms: 10_000, source: 'learned' });
    // The new window opened between 9 000 and 10 060: its end is waited for from the latest.
    expect(budget.windowEnd).toBe(20_060);
  });

  it('counts replies that overtake earlier requests so the whole window is spent, never more', () => {
    const budget = new WindowBudget({ requestsPerMinute: 48, concurrency: 4, windowMs: 10_000 });
    const seqs = [0, 1, 2, 3].map(() => budget.noteStart(0));
    const reply = (i: number, remaining: number) =>
      budget.observe({ seq: seqs[i] as number, remaining, limit: 8, sentAt: 0, receivedAt: 5 });
    reply(3, 4); // the last one answers first: three others may or may not be counted yet
    const room = () => {
      let n = 0;
      while (budget.nextStartAt(6) <= 6 && n < 10) {
        budget.noteStart(6);
        n += 1;
      }
      return n;
    };
    expect(room()).toBe(1);
    reply(0, 7); // counted before it: already in its 4
    reply(1, 6);
    reply(2, 5);
    // 8 in the window: the 4 first, the one just started, and 3 more.
    expect(room()).toBe(3);
    expect(budget.nextStartAt(6)).toBe(10_005);
  });

  it('never replaces a configured window with what it sees', () => {
    const budget = new WindowBudget({ requestsPerMinute: 600, concurrency: 4, windowMs: 60_000 });
    exchange(budget, 0, 99);
    const seq = budget.noteStart(100);
    const wait = budget.noteLimited({ seq, sentAt: 100, receivedAt: 110, retryAfterMs: 10_000 });
    expect(wait).toEqual({ waitMs: 10_000, probe: false });
    expect(budget.window).toEqual({ ms: 60_000, source: 'configured' });
  });

  it('with the window unknown and the server spent, sends one probe and waits for its answer', () => {
    const budget = new WindowBudget({ requestsPerMinute: 6_000, concurrency: 4 });
    exchange(budget, 0, 0, 1); // opened by us, and spent
    expect(budget.nextStartAt(20)).toBe(20);
    const probe = budget.noteStart(20);
    expect(budget.nextStartAt(21)).toBe(Number.POSITIVE_INFINITY);
    // Its 429 dates the window's end: Retry-After 5 s, the window opened between 0 and 10.
    const wait = budget.noteLimited({ seq: probe, sentAt: 20, receivedAt: 30, retryAfterMs: 5_000 });
    expect(budget.window).toEqual({ ms: 5_000, source: 'learned' });
    // The window's latest end (5 s after it opened, by 10) is sharper than the Retry-After's whole
    // seconds: the pause ends there, 20 ms before the rounded-up 5 s.
    expect(wait).toEqual({ waitMs: 4_980, probe: false });
  });

  it('looks afresh after a documented window without news when the window is unknown', () => {
    const budget = new WindowBudget({ requestsPerMinute: 600, concurrency: 4 });
    exchange(budget, 0, 0);
    // Spent by others, and no window known: a probe's 429 would date this window's end but teach
    // nothing of its length (when it opened is not known). The documented window's end is waited for.
    expect(budget.nextStartAt(100)).toBe(60_010);
    // A minute on, what was seen is stale: up to `concurrency` requests go to see the new state.
    const later = 60_100;
    for (let i = 0; i < 4; i++) {
      expect(budget.nextStartAt(later)).toBe(later);
      budget.noteStart(later);
    }
    expect(budget.nextStartAt(later)).toBe(Number.POSITIVE_INFINITY);
  });

  it('leaves what the other clients on the IP are seen to spend', () => {
    const budget = new WindowBudget({ requestsPerMinute: 600, concurrency: 4, windowMs: 10_000 });
    // Each second one request of ours while `remaining` drops by 6: the others send 5 a second.
    let remaining = 99;
    exchange(budget, 0, remaining);
    for (let t = 1_000; t <= 5_000; t += 1_000) {
      remaining -= 6;
      exchange(budget, t, remaining);
    }
    expect(budget.othersRatePerMs * 1_000).toBeGreaterThan(3);
    // 69 left at 5 s, about 25 of them for the others by the window's end: ours go spread, not at once.
    const next = budget.nextStartAt(5_010);
    expect(next).toBeGreaterThan(5_010);
    expect(next).toBeLessThan(10_010);
  });
});
