import { describe, expect, it } from 'vitest';
import {
  shareOfWindow,
  windowEndFromRetryAfter,
  windowFromBounds,
} from '../../../src/api/queue/rate-limit/window-math.js';

describe('shareOfWindow', () => {
  it('scales requests_per_minute to the window, at least one', () => {
    expect(shareOfWindow(300, 60_000)).toBe(300);
    expect(shareOfWindow(600, 10_000)).toBe(100);
    expect(shareOfWindow(600, 2_000)).toBe(20);
    expect(shareOfWindow(100, 1_000)).toBe(1);
    expect(shareOfWindow(1, 1_000)).toBe(1);
  });
});

describe('windowFromBounds', () => {
  it('takes the largest whole second inside (lo, hi]', () => {
    expect(windowFromBounds(9_010, 10_020)).toBe(10_000);
    expect(windowFromBounds(1_200, 2_001)).toBe(2_000);
  });

  it('keeps the upper bound when no whole second fits, never going below the range', () => {
    expect(windowFromBounds(10_100, 10_900)).toBe(10_900);
    expect(windowFromBounds(0, 800)).toBe(800);
  });
});

describe('windowEndFromRetryAfter', () => {
  it('places the end in the last second before a delay-seconds value (rounded up by the server)', () => {
    expect(windowEndFromRetryAfter(1_000, 1_010, 8_000, false)).toEqual({ lo: 8_000, hi: 9_010 });
  });

  it('allows a second either side of an HTTP-date', () => {
    expect(windowEndFromRetryAfter(1_000, 1_010, 8_000, true)).toEqual({ lo: 8_010, hi: 10_010 });
  });
});
