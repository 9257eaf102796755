/**
 * Pure arithmetic of rate-limit headers (Retry-After, counts), kept apart from
 * timers so it can be tested exactly on a fake clock. The backoff between
 * retries is src/backoff.ts, shared with uploads.
 */

/**
 * Milliseconds to wait from a Retry-After header: delay-seconds or an HTTP-date
 * (RFC 9110 §10.2.3; the API document says seconds, see Limits, but both are
 * legal). Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** Parses a non-negative integer header value; undefined otherwise. */
export function parseCountHeader(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}
