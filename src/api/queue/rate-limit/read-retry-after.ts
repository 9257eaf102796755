import { parseRetryAfter } from './retry-math.js';

/**
 * The shortest Retry-After obeyed as it is said. A 429 is the server asking to
 * wait (API document, Limits: "A throttled request gets 429 with a Retry-After
 * header (seconds)"), so a shorter one (`0`, a fraction of a second, a date
 * already past) cannot be what it means: sent again at once, every request
 * would meet the same 429 within milliseconds.
 */
export const RETRY_AFTER_FLOOR_MS = 1_000;

/**
 * What a 429's Retry-After means to the queue. `wait`: that long, exactly. Every
 * other reading says nothing usable, and the queue falls back to what it knows
 * (the end of a window it saw spent) or to the probe backoff (probe-backoff.ts:
 * 1 s, one request at a time, doubling while probes meet 429s, capped at the
 * window). Never a reason to give up: no reading ends a request.
 */
export type RetryAfterReading =
  | { kind: 'wait'; ms: number /** An HTTP date (whole seconds either way), not delay-seconds. */; isDate: boolean }
  | { kind: 'absent' }
  | { kind: 'unusable'; why: string };

/**
 * Reads a 429's Retry-After against the floor (RETRY_AFTER_FLOOR_MS) and the
 * ceiling (`retry.maxRetryAfterMs`): delay-seconds (fractions accepted) or an
 * HTTP date (RFC 9110 §10.2.3). Below the floor, above the ceiling, negative
 * or unreadable: `unusable`, with the reason for the log. Above the ceiling is
 * not believed either: a deployment that really means hours is probed about
 * once a window, one request at a time, which costs it nothing.
 */
export function readRetryAfter(value: string | undefined, nowMs: number, ceilingMs: number): RetryAfterReading {
  if (value === undefined || value.trim() === '') return { kind: 'absent' };
  const text = value.trim();
  if (/^-\s*\d/.test(text)) return { kind: 'unusable', why: 'negative' };
  const ms = parseRetryAfter(text, nowMs);
  if (ms === undefined) return { kind: 'unusable', why: 'unreadable' };
  const isDate = /[a-z]/i.test(text);
  if (ms < RETRY_AFTER_FLOOR_MS) {
    return { kind: 'unusable', why: isDate ? 'a date less than 1 s ahead' : 'below the 1 s floor' };
  }
  if (ms > ceilingMs) return { kind: 'unusable', why: `above the ${Math.round(ceilingMs / 1000)} s ceiling` };
  return { kind: 'wait', ms, isDate };
}
