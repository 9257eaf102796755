import { describe, expect, it } from 'vitest';
import { baseSpacingMs, defaultPacingMargin } from '../../../src/api/pacing-math.js';
import { RateBudget } from '../../../src/api/rate-budget.js';

/** The server's rule (see Limits): a fixed window per IP, from the first request after the last one expired. */
class FixedWindowServer {
  private windowStart: number | undefined;
  private count = 0;
  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}
  /** Remaining after this request, or 'limited' (429, not counted). */
  hit(t: number): { remaining: number } | { retryAt: number } {
    if (this.windowStart === undefined || t >= this.windowStart + this.windowMs) {
      this.windowStart = t;
      this.count = 0;
    }
    if (this.count >= this.limit) return { retryAt: this.windowStart + this.windowMs };
    this.count += 1;
    return { remaining: this.limit - this.count };
  }
}

interface SimResult {
  ours: number;
  ours429: number;
  others: number;
  others429: number;
  bound: number;
}

/**
 * Millisecond-step simulation: our client paced by spacing + RateBudget, and
 * optionally another client on the same IP sending every `otherEveryMs`.
 */
function simulate(o: { rpm: number; windowMs: number; otherEveryMs?: number; durationMs: number }): SimResult {
  const limit = (o.rpm * o.windowMs) / 60_000;
  const server = new FixedWindowServer(limit, o.windowMs);
  const margin = defaultPacingMargin(o.rpm, o.windowMs);
  const spacing = baseSpacingMs(o.rpm, margin);
  const budget = new RateBudget({ windowMs: o.windowMs, margin, baseRatePerMs: 1 / spacing, reorderSlack: 4 });
  const r: SimResult = { ours: 0, ours429: 0, others: 0, others429: 0, bound: 0 };
  let last: number | undefined;
  let pausedUntil = 0;
  for (let t = 0; t < o.durationMs; t++) {
    if (o.otherEveryMs && t % o.otherEveryMs === 0) {
      const res = server.hit(t);
      if ('retryAt' in res) r.others429 += 1;
      else r.others += 1;
    }
    const paced = last === undefined ? t : last + spacing;
    const byBudget = budget.earliestNext(last, t);
    if (t < Math.max(paced, byBudget, pausedUntil)) continue;
    if (byBudget > paced + 1e-6) r.bound += 1;
    last = t;
    const seq = budget.noteStart();
    const res = server.hit(t);
    if ('retryAt' in res) {
      r.ours429 += 1;
      budget.forget();
      pausedUntil = res.retryAt;
    } else {
      r.ours += 1;
      budget.observe({ remaining: res.remaining, limit, seq, sentAt: t, receivedAt: t });
    }
  }
  return r;
}

describe('RateBudget', () => {
  it('never binds before plain pacing when alone on the IP, and the server never answers 429', () => {
    const r = simulate({ rpm: 300, windowMs: 60_000, durationMs: 180_000 });
    expect(r.ours429).toBe(0);
    expect(r.bound).toBe(0);
    expect(r.ours).toBeGreaterThanOrEqual(Math.floor(180_000 / baseSpacingMs(300, 0.02)) - 3);
  });

  it('keeps a small window (20 per 2 s) free of 429s when alone', () => {
    const r = simulate({ rpm: 600, windowMs: 2_000, durationMs: 20_000 });
    expect(r.ours429).toBe(0);
    expect(r.ours).toBeGreaterThanOrEqual(185); // 19 of 20 per window
    expect(r.bound).toBe(0);
  });

  it('slows down when another client spends half the budget, leaving it room', () => {
    const r = simulate({ rpm: 600, windowMs: 6_000, otherEveryMs: 200, durationMs: 60_000 });
    expect(r.bound).toBeGreaterThan(0);
    expect(r.ours429).toBe(0);
    expect(r.others429).toBe(0);
    // We still get most of what the other client leaves (30 of 60 per window, 10 windows).
    expect(r.ours).toBeGreaterThanOrEqual(250);
    expect(r.others).toBe(300);
  });

  const base = (300 * 0.98) / 60_000; // 300 per minute less 2%: one request per 204 ms
  const budgetFor = (o: { reserve?: number; margin?: number } = {}) =>
    new RateBudget({
      windowMs: 60_000,
      margin: o.margin ?? 0.02,
      baseRatePerMs: base,
      reorderSlack: 4,
      reserve: o.reserve,
    });

  it('does not constrain the first request', () => {
    expect(budgetFor().earliestNext(undefined, 0)).toBe(Number.NEGATIVE_INFINITY);
  });

  it('waits for the estimated window end when nothing is left', () => {
    const budget = budgetFor();
    const seq = budget.noteStart();
    budget.observe({ remaining: 0, limit: 300, seq, sentAt: 0, receivedAt: 10 });
    expect(budget.earliestNext(0, 10)).toBe(60_010);
    // Past the estimated end, only the share rule remains.
    expect(budget.earliestNext(0, 60_010)).toBeCloseTo(1 / base);
  });

  it('spreads a low remaining budget over the rest of the window', () => {
    const budget = budgetFor({ reserve: 0 });
    const seq = budget.noteStart();
    budget.observe({ remaining: 10, seq, sentAt: 0, receivedAt: 0 });
    // 10 left fit before the end of the 60 s window; the 11th falls on it.
    expect(budget.earliestNext(0, 0)).toBeCloseTo(60_000 / 11);
  });

  it('counts our own requests started since the observation', () => {
    const budget = budgetFor({ reserve: 0 });
    const seq = budget.noteStart();
    budget.observe({ remaining: 4, seq, sentAt: 0, receivedAt: 0 });
    budget.noteStart();
    budget.noteStart();
    expect(budget.earliestNext(0, 0)).toBe(20_000); // 2 left in the 60 s
  });

  it('treats a rise in remaining as a new window, and ignores overtaken responses', () => {
    const budget = budgetFor();
    const a = budget.noteStart();
    const b = budget.noteStart();
    budget.observe({ remaining: 0, limit: 300, seq: b, sentAt: 1_000, receivedAt: 1_000 });
    budget.observe({ remaining: 5, limit: 300, seq: a, sentAt: 900, receivedAt: 1_001 }); // older: ignored
    expect(budget.earliestNext(1_000, 1_001)).toBe(61_000);
    const c = budget.noteStart();
    budget.observe({ remaining: 299, limit: 300, seq: c, sentAt: 2_000, receivedAt: 2_000 });
    expect(budget.windowEnd).toBe(62_000);
    expect(budget.earliestNext(2_000, 2_000)).toBeCloseTo(2_000 + 1 / base);
  });

  it("measures the other clients' pace from what remaining loses beyond our own requests", () => {
    const budget = budgetFor();
    // Each second: one request of ours, and `remaining` drops by 3: the others send 2 per second.
    let remaining = 300;
    for (let i = 0; i < 120; i++) {
      const t = i * 1_000;
      if (i % 60 === 0) remaining = 300; // a new window every minute
      remaining -= i % 60 === 0 ? 1 : 3;
      budget.observe({ remaining, limit: 300, seq: budget.noteStart(), sentAt: t, receivedAt: t });
    }
    const perSecond = budget.othersRatePerMs * 1_000;
    expect(perSecond).toBeGreaterThan(1.8);
    expect(perSecond).toBeLessThan(2.05);
    // We take what they leave: 4.9 per second allowed, less theirs.
    const gap = budget.earliestNext(119_000, 119_000) - 119_000;
    expect(gap).toBeGreaterThan(1_000 / 3.1);
  });

  it('keeps the share rule after a 429, forgetting only the window', () => {
    const budget = budgetFor();
    budget.observe({ remaining: 0, limit: 300, seq: budget.noteStart(), sentAt: 0, receivedAt: 0 });
    budget.forget();
    expect(budget.windowEnd).toBeUndefined();
    expect(budget.earliestNext(0, 1)).toBeCloseTo(1 / base);
  });

  it('paces no faster than a server-announced limit lower than ours', () => {
    const budget = budgetFor({ margin: 0, reserve: 0 });
    budget.observe({ remaining: 59, limit: 60, seq: budget.noteStart(), sentAt: 0, receivedAt: 0 });
    expect(budget.earliestNext(0, 0)).toBeGreaterThanOrEqual(1_000);
  });
});
