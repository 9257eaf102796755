import type { Clock } from '../../../clock.js';
import type { Logger } from '../../../log.js';
import { errorFromResponse, headerValue, type RawResponse } from '../../errors/error-from-response.js';
import { API_ERROR_CODES, ApiError } from '../../errors/errors.js';
import type { AttemptOutcome, QueuedRequest, RequestCounts } from '../queued-request.js';
import type { RetryOptions } from '../resolve-queue-options.js';
import { parseCountHeader, parseRetryAfter } from './retry-math.js';
import { GatePriority, type StartGate } from './start-gate.js';
import type { WindowBudget } from './window-budget.js';

export interface PacedSenderOptions {
  clock: Clock;
  log: Logger;
  budget: WindowBudget;
  gate: StartGate;
  retry: Pick<Required<RetryOptions>, 'maxRateLimitRetries' | 'maxRetryAfterMs'>;
  /** retry.defaultRetryAfterMs as configured; undefined: the budget's estimate per 429. */
  defaultRetryAfterMs: number | undefined;
  /** The queue's counters (shared with its failure retries). */
  counts: RequestCounts;
}

/**
 * How a 429 is handled, and what every response teaches the budget: sends a
 * request only when the StartGate lets it (the WindowBudget has room in the
 * server's window), feeds X-RateLimit-* back to the budget, and on a 429 pauses
 * the whole gate for the server's wait and sends the same request again, first
 * in line. A 429 says when to come back, not that the request is wrong (API
 * document, Limits: "A throttled request gets 429 with a Retry-After header"),
 * so it keeps its concurrency slot and never reaches the backoff of ../send-with-retries.ts;
 * only too many in a row, or a wait longer than retry.maxRetryAfterMs, fail it.
 */
export class PacedSender {
  private loggedWindowMs: number | undefined;

  constructor(private readonly o: PacedSenderOptions) {}

  /** One turn in a concurrency slot: sends until the answer is not a 429 (or the 429s exhaust the retry options). */
  async attempt(req: QueuedRequest, signal: AbortSignal, priority: number): Promise<AttemptOutcome> {
    const { clock, budget, gate, counts } = this.o;
    for (let inARow = 1; ; inARow++) {
      const seq = await gate.acquire(priority, signal);
      const sentAt = clock.now();
      counts.requests += 1;
      let response: RawResponse;
      try {
        response = await req.send(signal);
      } catch (error) {
        budget.noteFailed(seq);
        gate.wake();
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
      counts.rateLimited += 1;
      const header = headerValue(response.headers, 'retry-after');
      const receivedAt = clock.now();
      const retryAfterMs = parseRetryAfter(header, receivedAt);
      const limited = budget.noteLimited({
        seq,
        sentAt,
        receivedAt,
        retryAfterMs,
        isDate: header !== undefined && /[a-z]/i.test(header),
        remaining: parseCountHeader(headerValue(response.headers, 'x-ratelimit-remaining')),
      });
      if (limited.probe) counts.rateLimitProbes += 1;
      const waitMs = retryAfterMs === undefined ? (this.o.defaultRetryAfterMs ?? limited.waitMs) : limited.waitMs;
      this.logLearnedWindow();
      if (inARow > this.o.retry.maxRateLimitRetries || waitMs > this.o.retry.maxRetryAfterMs) {
        return { error: errorFromResponse(response, req, { retryAfterMs: waitMs }) };
      }
      this.pauseFor(waitMs, req, header);
      priority = GatePriority.retry;
    }
  }

  /** A 429 pauses the whole queue (docs/operations.md), for exactly the server's wait: no jitter on top. */
  private pauseFor(waitMs: number, req: QueuedRequest, header: string | undefined): void {
    this.o.gate.pauseFor(waitMs);
    this.o.counts.retries += 1;
    this.o.log.warn(
      { method: req.method, url: req.url, retry_after: header ?? null, pause_ms: waitMs },
      'rate limited (429): pausing every request',
    );
  }

  private observe(response: RawResponse, seq: number, sentAt: number): void {
    const remaining = parseCountHeader(headerValue(response.headers, 'x-ratelimit-remaining'));
    const limit = parseCountHeader(headerValue(response.headers, 'x-ratelimit-limit'));
    const cut = this.o.budget.observe({ remaining, limit, seq, sentAt, receivedAt: this.o.clock.now() });
    if (cut !== undefined) this.o.gate.cutPause(cut);
    this.logLearnedWindow();
    this.o.gate.wake();
  }

  /** Says once per new value what the server's window was found to be (operators compare it with their config). */
  private logLearnedWindow(): void {
    const window = this.o.budget.window;
    if (window.source !== 'learned' || window.ms === this.loggedWindowMs) return;
    this.loggedWindowMs = window.ms;
    this.o.log.info({ window_ms: window.ms }, 'rate window learned from the server');
  }

  private count(key: string): void {
    this.o.counts.byStatus[key] = (this.o.counts.byStatus[key] ?? 0) + 1;
  }
}
