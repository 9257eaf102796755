/**
 * The one retry backoff of the connector, shared by API requests
 * (src/api/queue/send-with-retries.ts) and object-storage uploads
 * (src/output/sinks/retry-upload.ts): pure arithmetic, so it is tested exactly.
 */

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
