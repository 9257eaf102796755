import { type Clock, systemClock } from '../../clock.js';
import { RATE_LIMIT_MAX } from '../../config/schema.js';
import type { ConfigIssue } from '../../errors.js';
import { type Logger, silentLogger } from '../../log.js';
import { OptionChecker } from './check-options.js';
import type { RateSpend } from './rate-limit/rate-spend.js';

export interface RetryOptions {
  /** Retries of a 5xx, network error or timeout, for idempotent requests only. @default 5 */
  maxRetries?: number;
  /** Backoff before the first such retry, doubled each time, with jitter. @default 500 */
  baseDelayMs?: number;
  /** Cap of one backoff delay. @default 30000 */
  maxDelayMs?: number;
  /**
   * Pause after a 429 that carries no usable Retry-After (absent, unreadable, or outside
   * the floor of 1 s and the ceiling `maxRetryAfterMs`: src/api/queue/rate-limit/read-retry-after.ts).
   * @default until the latest possible end of the current window when the server showed it spent and
   * its end is known; else a backoff from 1 s, doubling while probes meet 429s, capped at the window
   * (configured, learned, or the documented 60 s)
   */
  defaultRetryAfterMs?: number;
  /**
   * Longest Retry-After obeyed as said (the ceiling). A longer one is not believed: the queue
   * probes instead, one request at a time, at most a window apart. No 429 fails a request.
   * @default 600000
   */
  maxRetryAfterMs?: number;
}

export interface RequestQueueOptions {
  /** Our share of the IP's budget, per minute: scaled to the window, the most we start in any window. @default 300 */
  requestsPerMinute?: number;
  /** Requests in flight at once. @default 4 */
  concurrency?: number;
  /** Length of the server's fixed rate window in seconds. @default learned from the server's headers */
  rateWindowSeconds?: number;
  /** Requests of the server's remaining budget left in each window for the others on the IP, while they are seen. @default 1 */
  reserve?: number;
  /** What an earlier process of this deployment spent of the rate window: this queue starts from it. @default none (a full budget) */
  priorSpend?: RateSpend;
  retry?: RetryOptions;
  /** Time source; pass a fake in tests. @default systemClock */
  clock?: Clock;
  logger?: Logger;
}

/** The options with their defaults filled in, as the queue and its parts use them. */
export interface ResolvedQueueOptions {
  requestsPerMinute: number;
  concurrency: number;
  /** Undefined: learned from the server (WindowBudget). */
  rateWindowMs: number | undefined;
  reserve: number | undefined;
  priorSpend: RateSpend | undefined;
  clock: Clock;
  log: Logger;
  retry: Required<RetryOptions>;
  /**
   * retry.defaultRetryAfterMs as given: undefined means the budget's estimate per
   * 429, which the filled-in retry.defaultRetryAfterMs (0) cannot say.
   */
  defaultRetryAfterMs: number | undefined;
}

/**
 * Fills in the defaults. The options are trusted here: each was checked once,
 * where it entered — by the config schema (source.rate_limit) or, for a caller
 * that builds options itself, by createApiClient through queueOptionIssues.
 */
export function resolveQueueOptions(o: RequestQueueOptions): ResolvedQueueOptions {
  return {
    requestsPerMinute: o.requestsPerMinute ?? 300,
    concurrency: o.concurrency ?? 4,
    rateWindowMs: o.rateWindowSeconds === undefined ? undefined : o.rateWindowSeconds * 1000,
    reserve: o.reserve,
    priorSpend: o.priorSpend,
    clock: o.clock ?? systemClock,
    log: o.logger ?? silentLogger(),
    retry: {
      maxRetries: 5,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      defaultRetryAfterMs: 0, // unset: the budget's estimate per 429 (see PacedSender)
      maxRetryAfterMs: 600_000,
      ...stripUndefined(o.retry ?? {}),
    },
    defaultRetryAfterMs: o.retry?.defaultRetryAfterMs,
  };
}

/** Every problem of the queue's options, with exact messages (for one ConfigError listing them all). */
export function queueOptionIssues(o: RequestQueueOptions): ConfigIssue[] {
  const c = new OptionChecker();
  c.number('requestsPerMinute', o.requestsPerMinute, 1, { max: RATE_LIMIT_MAX.requests_per_minute });
  c.number('concurrency', o.concurrency, 1, { max: RATE_LIMIT_MAX.concurrency, integer: true });
  c.number('rateWindowSeconds', o.rateWindowSeconds, 1, { max: RATE_LIMIT_MAX.window_seconds });
  c.number('reserve', o.reserve, 0, { max: 1000, integer: true });
  c.number('retry.maxRetries', o.retry?.maxRetries, 0, { max: 100, integer: true });
  c.number('retry.baseDelayMs', o.retry?.baseDelayMs, 0);
  c.number('retry.maxDelayMs', o.retry?.maxDelayMs, 0);
  c.number('retry.defaultRetryAfterMs', o.retry?.defaultRetryAfterMs, 1000);
  c.number('retry.maxRetryAfterMs', o.retry?.maxRetryAfterMs, 1000);
  return c.issues;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
