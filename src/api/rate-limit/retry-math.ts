/**
 * Pure arithmetic of retry delays and rate-limit headers, kept apart from
 * timers so it can be tested exactly on a fake clock.
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

export interface BackoffPolicy {
  /** Delay before the first retry. */
  baseDelayMs: number;
  /** Cap of any single delay. */
  maxDelayMs: number;
}

/**
 * Capped exponential backoff with "equal jitter": half the step is fixed, half
 * random. The fixed half keeps retries from collapsing to zero on a struggling
 * server; the random half spreads clients that failed together.
 * @param retry 1 for the first retry.
 * @param random a number in [0, 1)
 */
export function backoffDelayMs(retry: number, policy: BackoffPolicy, random: number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(step / 2 + (step / 2) * random);
}

/** Parses a non-negative integer header value; undefined otherwise. */
export function parseCountHeader(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}
