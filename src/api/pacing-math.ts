/**
 * Pure arithmetic of pacing and retry delays, kept apart from timers so it can
 * be tested exactly (pacing math on a fake clock).
 */

/**
 * Safety margin taken off the allowed rate. The API limits per client IP in a
 * fixed window (see Limits: "300 requests per 1 minute ... keyed by client IP").
 * Pacing evenly at exactly the limit would put the limit's last request and the
 * next window's first within network jitter of the window edge; a margin of at
 * least one request per window (and never less than 2%) keeps one slot spare.
 */
export function defaultPacingMargin(requestsPerMinute: number, windowMs: number): number {
  const perWindow = (requestsPerMinute * windowMs) / 60_000;
  return Math.min(0.5, Math.max(0.02, 1 / Math.max(perWindow, 1)));
}

/**
 * Minimum milliseconds between two request starts. At `requests_per_minute / 60`
 * per second less the margin, no second (and no server window) sees a burst.
 */
export function baseSpacingMs(requestsPerMinute: number, margin: number): number {
  return 60_000 / (requestsPerMinute * (1 - margin));
}

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
