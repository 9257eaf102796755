import { describe, expect, it } from 'vitest';
import { OthersPace } from '../../../src/api/queue/rate-limit/others-pace.js';

describe('OthersPace', () => {
  it('stays sharing two windows after others were last seen, as long as the window is now', () => {
    let windowMs = 60_000;
    const others = new OthersPace(() => windowMs, 4);
    others.learn(10, 1_000, 0);
    expect(others.sharing(100_000)).toBe(true);
    // The window was learned since: 2 s, not the 60 s assumed when they were seen.
    windowMs = 2_000;
    expect(others.sharing(3_000)).toBe(true);
    expect(others.sharing(4_001)).toBe(false);
  });

  it('looks for others a fifth of the window after requests counted before ours, no more', () => {
    const others = new OthersPace(() => 10_000, 4);
    others.sentBefore(0);
    expect(others.sharing(1_999)).toBe(true);
    expect(others.sharing(2_000)).toBe(false);
  });

  it('takes a few of their requests in one window as our own reordering, not as a client seen', () => {
    const others = new OthersPace(() => 10_000, 4);
    others.learn(4, 500, 0);
    expect(others.sharing(1)).toBe(false);
    others.learn(1, 500, 500);
    expect(others.sharing(501)).toBe(true);
  });

  it('lets a pace measured while they sent fade once they are silent: a factor e per fifth of a window', () => {
    const others = new OthersPace(() => 10_000, 4);
    others.learn(50, 5_000, 5_000);
    const measured = others.rateAt(5_000);
    expect(measured).toBeGreaterThan(0.005);
    expect(others.rateAt(7_000)).toBeCloseTo(measured / Math.E, 10);
    // A sample that counts none of theirs does not refresh it.
    others.learn(0, 100, 7_000);
    expect(others.rateAt(9_000)).toBeLessThan(measured / 7);
  });
});
