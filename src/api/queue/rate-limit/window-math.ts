/**
 * Pure arithmetic of the server's fixed rate window (docs/rate-limits.md). The
 * API document (Limits) says api.global allows "300 requests per
 * 1 minute ... keyed by client IP" and that "each limiter's maximum and window
 * are configurable per deployment": the window's length is not something a
 * client may take for granted.
 */

/** api.global's documented window (Limits: "per 1 minute"), assumed only until the server shows its own. */
export const DOCUMENTED_WINDOW_MS = 60_000;

/** Our share of one window: `requests_per_minute` scaled to the window's length, at least one request. */
export function shareOfWindow(requestsPerMinute: number, windowMs: number): number {
  return Math.max(1, Math.floor((requestsPerMinute * windowMs) / 60_000 + 1e-9));
}

/**
 * The window length to act on, given that it lies in (loMs, hiMs]. Deployments
 * set windows in whole seconds (and Retry-After counts whole seconds), so the
 * largest whole second in the range; the upper bound itself when none fits.
 * Never below the range: waiting a little long costs time, waking early costs a 429.
 */
export function windowFromBounds(loMs: number, hiMs: number): number {
  const whole = Math.floor(hiMs / 1000) * 1000;
  return whole >= 1000 && whole > loMs ? whole : hiMs;
}

/**
 * Bounds of the current window's end from a 429's Retry-After. The server
 * counted it at some instant between our send and our receipt; delay-seconds
 * are whole seconds rounded up (the end lies in the last second before), an
 * HTTP-date is whole seconds either way.
 */
export function windowEndFromRetryAfter(
  sentAt: number,
  receivedAt: number,
  retryAfterMs: number,
  isDate: boolean,
): { lo: number; hi: number } {
  if (isDate) return { lo: receivedAt + retryAfterMs - 1000, hi: receivedAt + retryAfterMs + 1000 };
  return { lo: sentAt + retryAfterMs - 1000, hi: receivedAt + retryAfterMs };
}

/**
 * When the next start may be, spreading `available` starts from the last one
 * (`lastStartAt`) to `until` so the one after them falls on `until`; `now`
 * when they would come every few ms anyway (timer waits would only add).
 */
export function spreadStartAt(now: number, lastStartAt: number, until: number, available: number): number {
  const gap = Math.max(0, until - lastStartAt) / (available + 1);
  return gap < SPREAD_MIN_GAP_MS ? now : Math.max(now, lastStartAt + gap);
}

/** Below this spacing, spreading starts would only add timer waits: the room is ample. */
const SPREAD_MIN_GAP_MS = 5;
