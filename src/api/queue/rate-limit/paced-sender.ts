import type { Clock } from '../../../clock.js';
import type { Logger } from '../../../log.js';
import { headerValue, type RawResponse } from '../../errors/error-from-response.js';
import { API_ERROR_CODES, ApiError } from '../../errors/errors.js';
import type { AttemptOutcome, QueuedRequest, RequestCounts } from '../queued-request.js';
import type { RetryOptions } from '../resolve-queue-options.js';
import { type RetryAfterReading, readRetryAfter } from './read-retry-after.js';
import { parseCountHeader } from './retry-math.js';
import { GatePriority, type StartGate } from './start-gate.js';
import type { WindowBudget } from './window-budget.js';

export interface PacedSenderOptions {
  clock: Clock;
  log: Logger;
  budget: WindowBudget;
  gate: StartGate;
  retry: Pick<Required<RetryOptions>, 'maxRetryAfterMs'>;
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
 * so it keeps its concurrency slot and never reaches the backoff of ../send-with-retries.ts
 * (nor uses up its retries, which are the faults'). No 429 fails a request: whatever its
 * Retry-After says (read-retry-after.ts), it is a wait; only the request's signal (the
 * run's deadline, an interruption) ends one.
 */
export class PacedSender {
  private loggedWindowMs: number | undefined;

  constructor(private readonly o: PacedSenderOptions) {}

  /**
   * One turn in a concurrency slot: sends until the answer is not a 429 (or the signal aborts the wait).
   * `lane`: the counters of the request's lane (an account sharing the queue), counted besides the queue's.
   */
  async attempt(
    req: QueuedRequest,
    signal: AbortSignal,
    priority: number,
    lane?: RequestCounts,
  ): Promise<AttemptOutcome> {
    const { clock, budget, gate, counts } = this.o;
    for (;;) {
      const seq = await gate.acquire(priority, signal);
      const sentAt = clock.now();
      counts.requests += 1;
      if (lane) lane.requests += 1;
      let response: RawResponse;
      try {
        response = await req.send(signal);
      } catch (error) {
        budget.noteFailed(seq);
        gate.wake();
        if (signal.aborted) throw signal.reason;
        if (!(error instanceof ApiError)) throw error;
        this.count(error.code === API_ERROR_CODES.timeout ? 'timeout' : 'network', lane);
        return { error };
      }
      this.count(String(response.status), lane);
      if (response.status !== 429) {
        counts.limitedSince = undefined;
        this.observe(response, seq, sentAt);
        return { response };
      }
      counts.rateLimited += 1;
      if (lane) lane.rateLimited += 1;
      const header = headerValue(response.headers, 'retry-after');
      const receivedAt = clock.now();
      counts.limitedSince ??= receivedAt;
      const reading = readRetryAfter(header, receivedAt, this.o.retry.maxRetryAfterMs);
      const retryAfterMs = reading.kind === 'wait' ? reading.ms : undefined;
      const remaining = parseCountHeader(headerValue(response.headers, 'x-ratelimit-remaining'));
      // The window's own limiter (a usable Retry-After, or its room shown spent) met before the window's
      // length was known: what learning it costs, by design one probe. A gateway's 429 that says
      // nothing is not the window's.
      const ofWindow = retryAfterMs !== undefined || remaining === 0;
      if (ofWindow && budget.window.source === 'assumed') {
        counts.rateLimitLearning += 1;
        if (lane) lane.rateLimitLearning += 1;
      }
      const limited = budget.noteLimited({
        seq,
        sentAt,
        receivedAt,
        retryAfterMs,
        isDate: reading.kind === 'wait' && reading.isDate,
        remaining,
      });
      if (limited.probe) {
        counts.rateLimitProbes += 1;
        if (lane) lane.rateLimitProbes += 1;
      }
      const waitMs = retryAfterMs === undefined ? (this.o.defaultRetryAfterMs ?? limited.waitMs) : limited.waitMs;
      this.logLearnedWindow();
      this.pauseFor(waitMs, req, header, reading);
      if (lane) lane.retries += 1;
      priority = GatePriority.retry;
    }
  }

  /** A 429 pauses the whole queue (docs/rate-limits.md), for exactly the server's wait: no jitter on top. */
  private pauseFor(waitMs: number, req: QueuedRequest, header: string | undefined, reading: RetryAfterReading): void {
    this.o.gate.pauseFor(waitMs);
    this.o.counts.retries += 1;
    this.o.log.warn(
      {
        method: req.method,
        url: req.url,
        retry_after: header ?? null,
        ...(reading.kind === 'unusable' ? { retry_after_ignored: reading.why } : {}),
        pause_ms: waitMs,
      },
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

  private count(key: string, lane: RequestCounts | undefined): void {
    for (const counts of lane ? [this.o.counts, lane] : [this.o.counts]) {
      counts.byStatus[key] = (counts.byStatus[key] ?? 0) + 1;
    }
  }
}
