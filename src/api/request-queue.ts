import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import { backoffDelayMs } from '../backoff.js';
import { type Clock, systemClock } from '../clock.js';
import { ConfigError } from '../errors.js';
import { type Logger, silentLogger } from '../log.js';
import { OptionChecker } from './check-options.js';
import { errorFromResponse, headerValue, type RawResponse } from './error-from-response.js';
import { API_ERROR_CODES, ApiError, RetriableApiError } from './errors.js';
import { parseCountHeader, parseRetryAfter } from './rate-limit/retry-math.js';
import { GatePriority, StartGate } from './rate-limit/start-gate.js';
import { WindowBudget } from './rate-limit/window-budget.js';
import type { RequestStats } from './types.js';

export interface RetryOptions {
  /** Retries of a 5xx, network error or timeout, for idempotent requests only. @default 5 */
  maxRetries?: number;
  /** Backoff before the first such retry, doubled each time, with jitter. @default 500 */
  baseDelayMs?: number;
  /** Cap of one backoff delay. @default 30000 */
  maxDelayMs?: number;
  /** 429s in a row one request may meet before it fails with API_RATE_LIMITED. @default 10 */
  maxRateLimitRetries?: number;
  /**
   * Pause after a 429 that carries no (readable) Retry-After.
   * @default until the latest possible end of the current window when known, else one whole window
   * (configured, learned, or the documented 60 s)
   */
  defaultRetryAfterMs?: number;
  /** Longest Retry-After obeyed; a longer one fails the request with API_RATE_LIMITED. @default 600000 */
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
  retry?: RetryOptions;
  /** Time source; pass a fake in tests. @default systemClock */
  clock?: Clock;
  logger?: Logger;
}

/** One HTTP request handed to the queue; `send` makes one attempt. */
export interface QueuedRequest {
  method: string;
  /** Token-free URL, for errors and logs. */
  url: string;
  /** GET and POST /search: 5xx, resets and timeouts may be retried (docs/operations.md). */
  idempotent: boolean;
  signal?: AbortSignal;
  /** Values redacted from every error (the token). */
  secrets?: readonly string[];
  /** Sends once; resolves with any HTTP status, throws ApiError for network failures. */
  send(signal: AbortSignal): Promise<RawResponse>;
}

type Outcome = { response: RawResponse; error?: undefined } | { error: ApiError; response?: undefined };

function checkOptions(o: RequestQueueOptions): void {
  const c = new OptionChecker();
  c.number('requestsPerMinute', o.requestsPerMinute, 1, { max: 100_000 });
  c.number('concurrency', o.concurrency, 1, { max: 64, integer: true });
  c.number('rateWindowSeconds', o.rateWindowSeconds, 1, { max: 86_400 });
  c.number('reserve', o.reserve, 0, { max: 1000, integer: true });
  c.number('retry.maxRetries', o.retry?.maxRetries, 0, { max: 100, integer: true });
  c.number('retry.baseDelayMs', o.retry?.baseDelayMs, 0);
  c.number('retry.maxDelayMs', o.retry?.maxDelayMs, 0);
  c.number('retry.maxRateLimitRetries', o.retry?.maxRateLimitRetries, 0, { max: 1000, integer: true });
  c.number('retry.defaultRetryAfterMs', o.retry?.defaultRetryAfterMs, 0);
  c.number('retry.maxRetryAfterMs', o.retry?.maxRetryAfterMs, 0);
  if (c.issues.length > 0) throw new ConfigError('request queue options', c.issues);
}

/**
 * The one queue every request of the process goes through (docs/operations.md): p-queue
 * bounds the requests in flight, the StartGate lets them start when the
 * WindowBudget (src/api/rate-limit/) has room in the server's rate window, and
 * this class owns every retry (got's own retry is off).
 */
export class RequestQueue {
  readonly requestsPerMinute: number;
  readonly concurrency: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly retry: Required<RetryOptions>;
  private readonly budget: WindowBudget;
  private readonly gate: StartGate;
  private readonly defaultRetryAfterMs: number | undefined;
  private loggedWindowMs: number | undefined;
  private readonly pq: PQueue;
  private readonly closing = new AbortController();
  private readonly counts = { requests: 0, retries: 0, rateLimited: 0, byStatus: {} as Record<string, number> };
  private active = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(options: RequestQueueOptions = {}) {
    checkOptions(options);
    this.requestsPerMinute = options.requestsPerMinute ?? 300;
    this.concurrency = options.concurrency ?? 4;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? silentLogger();
    this.retry = {
      maxRetries: 5,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      maxRateLimitRetries: 10,
      defaultRetryAfterMs: 0, // unset: the budget's estimate per 429 (see noteLimited)
      maxRetryAfterMs: 600_000,
      ...stripUndefined(options.retry ?? {}),
    };
    this.defaultRetryAfterMs = options.retry?.defaultRetryAfterMs;
    this.budget = new WindowBudget({
      requestsPerMinute: this.requestsPerMinute,
      windowMs: options.rateWindowSeconds === undefined ? undefined : options.rateWindowSeconds * 1000,
      concurrency: this.concurrency,
      reserve: options.reserve,
    });
    this.gate = new StartGate({ clock: this.clock, budget: this.budget });
    this.pq = new PQueue({ concurrency: this.concurrency });
    // Every queued request listens to this signal: their number is bounded by the callers, not by 10.
    setMaxListeners(0, this.closing.signal);
  }

  /**
   * Sends a request through the queue, retrying as docs/operations.md says. Resolves
   * with a 2xx response; anything else ends in a typed ApiError (or the
   * signal's reason when aborted).
   */
  async request(req: QueuedRequest): Promise<RawResponse> {
    if (this.closing.signal.aborted) throw this.closing.signal.reason;
    const signal = req.signal ? AbortSignal.any([req.signal, this.closing.signal]) : this.closing.signal;
    this.active += 1;
    try {
      return await this.withRetries(req, signal);
    } finally {
      this.active -= 1;
      if (this.active === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private async withRetries(req: QueuedRequest, signal: AbortSignal): Promise<RawResponse> {
    let priority: number = GatePriority.normal;
    for (let retries = 0; ; retries++) {
      const p = priority;
      const outcome = await this.pq.add(() => this.attempt(req, signal, p), { priority: p, signal });
      if (outcome.response && outcome.response.status < 300) return outcome.response;
      const error = outcome.error ?? errorFromResponse(outcome.response as RawResponse, req, this.serverDelay(outcome));
      // Writes are never retried blindly (docs/operations.md): only when the request provably never left.
      const mayRetry = error instanceof RetriableApiError && (req.idempotent || error.notSent === true);
      if (!mayRetry || error.code === API_ERROR_CODES.rateLimited || retries >= this.retry.maxRetries) throw error;
      // A server-given delay is obeyed as is; our own backoff gets jitter.
      const delay = error.retryAfterMs ?? backoffDelayMs(retries + 1, this.retry, this.clock.random());
      this.counts.retries += 1;
      this.log.warn(
        {
          method: req.method,
          url: req.url,
          code: error.code,
          status: error.status,
          retry: retries + 1,
          delay_ms: delay,
        },
        'request failed, retrying',
      );
      await this.clock.sleep(delay, signal);
      priority = GatePriority.retry;
    }
  }

  /** Retry-After of a 5xx, obeyed up to the backoff cap (retry.maxDelayMs). */
  private serverDelay(outcome: Outcome): { retryAfterMs?: number } {
    const header = outcome.response && headerValue(outcome.response.headers, 'retry-after');
    const ms = parseRetryAfter(header, this.clock.now());
    return ms === undefined ? {} : { retryAfterMs: Math.min(ms, this.retry.maxDelayMs) };
  }

  /** One turn in a concurrency slot. A 429 keeps the slot and goes back to the gate first in line. */
  private async attempt(req: QueuedRequest, signal: AbortSignal, priority: number): Promise<Outcome> {
    for (let inARow = 1; ; inARow++) {
      const seq = await this.gate.acquire(priority, signal);
      const sentAt = this.clock.now();
      this.counts.requests += 1;
      let response: RawResponse;
      try {
        response = await req.send(signal);
      } catch (error) {
        this.budget.noteFailed(seq);
        this.gate.wake();
        if (signal.aborted) throw signal.reason;
        if (!(error instanceof ApiError)) throw error;
        this.count(error.code === API_ERROR_CODES.timeout ? 'timeout' : 'network');
        return { error };
      }
      this.count(String(response.status));
      if (response.status !== 429) {
        this.observe(response, seq, sentAt);
        return { response };
      }
      this.counts.rateLimited += 1;
      const header = headerValue(response.headers, 'retry-after');
      const receivedAt = this.clock.now();
      const retryAfterMs = parseRetryAfter(header, receivedAt);
      const estimate = this.budget.noteLimited({
        seq,
        sentAt,
        receivedAt,
        retryAfterMs,
        isDate: header !== undefined && /[a-z]/i.test(header),
      });
      const waitMs = retryAfterMs ?? this.defaultRetryAfterMs ?? estimate;
      this.logLearnedWindow();
      if (inARow > this.retry.maxRateLimitRetries || waitMs > this.retry.maxRetryAfterMs) {
        return { error: errorFromResponse(response, req, { retryAfterMs: waitMs }) };
      }
      this.pauseFor(waitMs, req, header);
      priority = GatePriority.retry;
    }
  }

  /** A 429 pauses the whole queue (docs/operations.md), for exactly the server's wait: no jitter on top. */
  private pauseFor(waitMs: number, req: QueuedRequest, header: string | undefined): void {
    this.gate.pauseUntil(this.clock.now() + waitMs);
    this.counts.retries += 1;
    this.log.warn(
      { method: req.method, url: req.url, retry_after: header ?? null, pause_ms: waitMs },
      'rate limited (429): pausing every request',
    );
  }

  private observe(response: RawResponse, seq: number, sentAt: number): void {
    const remaining = parseCountHeader(headerValue(response.headers, 'x-ratelimit-remaining'));
    const limit = parseCountHeader(headerValue(response.headers, 'x-ratelimit-limit'));
    this.budget.observe({ remaining, limit, seq, sentAt, receivedAt: this.clock.now() });
    this.logLearnedWindow();
    this.gate.wake();
  }

  /** Says once per new value what the server's window was found to be (operators compare it with their config). */
  private logLearnedWindow(): void {
    const window = this.budget.window;
    if (window.source !== 'learned' || window.ms === this.loggedWindowMs) return;
    this.loggedWindowMs = window.ms;
    this.log.info({ window_ms: window.ms }, 'rate window learned from the server');
  }

  private count(key: string): void {
    this.counts.byStatus[key] = (this.counts.byStatus[key] ?? 0) + 1;
  }

  /** The server's rate window as the queue acts on it: configured, learned, or the documented 60 s assumed. */
  rateWindow(): { ms: number; source: 'configured' | 'learned' | 'assumed' } {
    return this.budget.window;
  }

  /** Counters for the run summary. */
  stats(): RequestStats {
    return {
      requests: this.counts.requests,
      byStatus: { ...this.counts.byStatus },
      retries: this.counts.retries,
      rateLimited: this.counts.rateLimited,
      waitedMs: Math.round(this.gate.waitedMs),
      rateLimitPausedMs: Math.round(this.gate.pausedMs),
    };
  }

  /** Resolves once every request handed in so far has settled, retries included (graceful shutdown). */
  drain(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Aborts everything queued or in flight and refuses new requests. */
  close(): void {
    if (this.closing.signal.aborted) return;
    const reason = new DOMException('The request queue was closed', 'AbortError');
    this.closing.abort(reason);
    this.gate.close(reason);
    this.pq.clear();
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
