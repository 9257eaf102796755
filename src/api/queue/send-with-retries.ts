import { backoffDelayMs } from '../../backoff.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../log.js';
import { errorFromResponse, headerValue, type RawResponse } from '../errors/error-from-response.js';
import { API_ERROR_CODES, type ApiError, RetriableApiError } from '../errors/errors.js';
import type { AttemptOutcome, QueuedRequest, RequestCounts } from './queued-request.js';
import { parseRetryAfter } from './rate-limit/retry-math.js';
import { GatePriority } from './rate-limit/start-gate.js';
import type { RetryOptions } from './resolve-queue-options.js';

export interface SendWithRetriesOptions {
  /** One turn in a concurrency slot at this priority (429s are handled inside it, ./rate-limit/paced-sender.ts). */
  attempt: (priority: number) => Promise<AttemptOutcome>;
  retry: Pick<Required<RetryOptions>, 'maxRetries' | 'baseDelayMs' | 'maxDelayMs'>;
  clock: Clock;
  log: Logger;
  counts: RequestCounts;
}

/**
 * The retries of failed requests: a 5xx, a reset or a timeout is sent again
 * after a capped backoff with jitter (src/backoff.ts), up to retry.maxRetries,
 * and each retry goes first in line. Writes are never retried blindly
 * (docs/operations.md): only when the request provably never left. A 429
 * reaching this loop already exhausted the rate-limit handling, so it fails.
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
    if (!mayRetry || error.code === API_ERROR_CODES.rateLimited || retries >= o.retry.maxRetries) throw error;
    // A server-given delay is obeyed as is; our own backoff gets jitter.
    const delay = error.retryAfterMs ?? backoffDelayMs(retries + 1, o.retry, o.clock.random());
    o.counts.retries += 1;
    o.log.warn(
      { method: req.method, url: req.url, code: error.code, status: error.status, retry: retries + 1, delay_ms: delay },
      'request failed, retrying',
    );
    await o.clock.sleep(delay, signal);
    priority = GatePriority.retry;
  }
}

/** The attempt's failure, or undefined for a 2xx with a usable body. */
function outcomeError(outcome: AttemptOutcome, req: QueuedRequest, o: SendWithRetriesOptions): ApiError | undefined {
  if (outcome.error) return outcome.error;
  if (outcome.response.status < 300) return req.checkBody?.(outcome.response);
  return errorFromResponse(outcome.response, req, serverDelay(outcome, o.retry, o.clock));
}

/** Retry-After of a 5xx, obeyed up to the backoff cap (retry.maxDelayMs). */
function serverDelay(
  outcome: AttemptOutcome,
  retry: SendWithRetriesOptions['retry'],
  clock: Clock,
): { retryAfterMs?: number } {
  const header = outcome.response && headerValue(outcome.response.headers, 'retry-after');
  const ms = parseRetryAfter(header, clock.now());
  return ms === undefined ? {} : { retryAfterMs: Math.min(ms, retry.maxDelayMs) };
}
