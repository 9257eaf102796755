import { describe, expect, it } from 'vitest';
import { parseCountHeader, parseRetryAfter } from '../../../src/api/queue/rate-limit/retry-math.js';

const NOW = Date.parse('2026-07-30T10:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('30', NOW)).toBe(30_000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfter('1.5', NOW)).toBe(1_500);
  });

  it('reads an HTTP-date relative to the clock', () => {
    expect(parseRetryAfter('Thu, 30 Jul 2026 10:00:45 GMT', NOW)).toBe(45_000);
  });

  it('turns an HTTP-date in the past into no wait', () => {
    expect(parseRetryAfter('Thu, 30 Jul 2026 09:59:00 GMT', NOW)).toBe(0);
  });

  it('gives undefined for absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
    expect(parseRetryAfter('-5', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('12abc', NOW)).toBeUndefined();
  });
});

describe('parseCountHeader', () => {
  it('reads non-negative integers only', () => {
    expect(parseCountHeader('42')).toBe(42);
    expect(parseCountHeader('0')).toBe(0);
    expect(parseCountHeader('-1')).toBeUndefined();
    expect(parseCountHeader('many')).toBeUndefined();
    expect(parseCountHeader(undefined)).toBeUndefined();
  });
});
