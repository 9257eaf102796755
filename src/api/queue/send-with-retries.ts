import { backoffDelayMs } from '../../backoff.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../log.js';
import { errorFromResponse, headerValue, type RawResponse } from '../errors/error-from-response.js';
import { type ApiError, RetriableApiError } from '../errors/errors.js';
import { isRedirect } from '../transport/follow-redirects.js';
import type { AttemptOutcome, QueuedRequest, RequestCounts } from './queued-request.js';
import { readRetryAfter } from './rate-limit/read-retry-after.js';
import { GatePriority } from './rate-limit/start-gate.js';
import type { RetryOptions } from './resolve-queue-options.js';

export interface SendWithRetriesOptions {
  /** One turn in a concurrency slot at this priority (429s are handled inside it, ./rate-limit/paced-sender.ts). */
  attempt: (priority: number) => Promise<AttemptOutcome>;
  retry: Pick<Required<RetryOptions>, 'maxRetries' | 'baseDelayMs' | 'maxDelayMs'>;
  clock: Clock;
  log: Logger;
  counts: RequestCounts;
  /** The counters of the request's lane (an account sharing the queue), counted besides the queue's. */
  lane?: RequestCounts;
}

/**
 * The retries of failed requests: a 5xx, a reset or a timeout is sent again
 * after a capped backoff with jitter (src/backoff.ts), up to retry.maxRetries,
 * and each retry goes first in line. Writes are never retried blindly
 * (docs/rate-limits.md, "Retries"): only when the request provably never left. A 429 never
 * reaches this loop: it is a wait, handled in its slot (./rate-limit/paced-sender.ts).
 * Which statuses are retryable at all is the status table's (../errors/status-table.ts),
 * through the error's class. A 2xx whose body req.checkBody refuses (a body cut
 * short by a proxy: see Errors) is retried the same way. `signal` is the
 * request's own joined with the queue's.
 */
export async function sendWithRetries(
  req: QueuedRequest,
  signal: AbortSignal,
  o: SendWithRetriesOptions,
): Promise<RawResponse> {
  let priority: number = GatePriority.normal;
  for (let retries = 0; ; retries++) {
    const outcome = await o.attempt(priority);
    const error = outcomeError(outcome, req, o);
    if (error === undefined) return outcome.response as RawResponse;
    const mayRetry = error instanceof RetriableApiError && (req.idempotent || error.notSent === true);
    if (!mayRetry || retries >= o.retry.maxRetries) throw error;
    // A server-given delay is obeyed as is; our own backoff gets jitter.
    const delay = error.retryAfterMs ?? backoffDelayMs(retries + 1, o.retry, o.clock.random());
    o.counts.retries += 1;
    if (o.lane) o.lane.retries += 1;
    o.log.warn(
      { method: req.method, url: req.url, code: error.code, status: error.status, retry: retries + 1, delay_ms: delay },
      'request failed, retrying',
    );
    await o.clock.sleep(delay, signal);
    priority = GatePriority.retry;
  }
}

/** The attempt's failure, or undefined for a 2xx with a usable body (or a redirect its caller follows). */
function outcomeError(outcome: AttemptOutcome, req: QueuedRequest, o: SendWithRetriesOptions): ApiError | undefined {
  if (outcome.error) return outcome.error;
  if (outcome.response.status < 300) return req.checkBody?.(outcome.response);
  if (req.passRedirects && isRedirect(outcome.response.status)) return undefined;
  return errorFromResponse(outcome.response, req, serverDelay(outcome, o.retry, o.clock));
}

/**
 * Retry-After of a 5xx, obeyed up to the backoff cap (retry.maxDelayMs); one the
 * 429s would not obey either (below the 1 s floor, unreadable) leaves the wait
 * to our own backoff, so a `Retry-After: 0` cannot spend the retries in a burst.
 */
function serverDelay(
  outcome: AttemptOutcome,
  retry: SendWithRetriesOptions['retry'],
  clock: Clock,
): { retryAfterMs?: number } {
  const header = outcome.response && headerValue(outcome.response.headers, 'retry-after');
  const reading = readRetryAfter(header, clock.now(), Number.POSITIVE_INFINITY);
  return reading.kind === 'wait' ? { retryAfterMs: Math.min(reading.ms, retry.maxDelayMs) } : {};
}
