import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import type { RequestStats } from '../endpoints/types.js';
import type { RawResponse } from '../errors/error-from-response.js';
import { type FairLanes, fairQueueClass, type LaneOptions } from './fair-lanes.js';
import { linkedSignal } from './linked-signal.js';
import type { QueuedRequest, RequestCounts } from './queued-request.js';
import { PacedSender } from './rate-limit/paced-sender.js';
import type { RateSpend } from './rate-limit/rate-spend.js';
import { StartGate } from './rate-limit/start-gate.js';
import { WindowBudget } from './rate-limit/window-budget.js';
import { type RequestQueueOptions, type ResolvedQueueOptions, resolveQueueOptions } from './resolve-queue-options.js';
import { sendWithRetries } from './send-with-retries.js';

export type { QueuedRequest } from './queued-request.js';
export type { RequestQueueOptions, RetryOptions } from './resolve-queue-options.js';

/**
 * The one queue every request of the process goes through (docs/rate-limits.md).
 * It only composes the parts, so each can be read alone:
 * - p-queue bounds the requests in flight (`concurrency`);
 * - in each slot, PacedSender (src/api/queue/rate-limit/paced-sender.ts) waits at the
 *   StartGate until the WindowBudget has room in the server's rate window, and
 *   handles a 429 by pausing every request for Retry-After;
 * - around that, sendWithRetries (./send-with-retries.ts) retries 5xx, resets
 *   and timeouts with backoff.
 * This class owns every retry (got's own retry is off), the counters, draining
 * and closing.
 */
export class RequestQueue {
  readonly requestsPerMinute: number;
  readonly concurrency: number;
  private readonly options: ResolvedQueueOptions;
  private readonly budget: WindowBudget;
  private readonly gate: StartGate;
  private readonly sender: PacedSender;
  private readonly pq: PQueue<FairLanes, LaneOptions>;
  /** Each lane's weight (an account's share of the budget); lanes not named weigh 1. */
  private readonly weights = new Map<string, number>();
  private readonly closing = new AbortController();
  private readonly counts: RequestCounts = emptyCounts();
  /** Each lane's own counters (an account sharing the queue): its part of the queue's. */
  private readonly laneCounts = new Map<string, RequestCounts>();
  private active = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(options: RequestQueueOptions = {}) {
    const o = resolveQueueOptions(options);
    this.options = o;
    this.requestsPerMinute = o.requestsPerMinute;
    this.concurrency = o.concurrency;
    this.budget = new WindowBudget({
      requestsPerMinute: o.requestsPerMinute,
      windowMs: o.rateWindowMs,
      concurrency: o.concurrency,
      reserve: o.reserve,
      prior: o.priorSpend,
    });
    this.gate = new StartGate({ clock: o.clock, budget: this.budget });
    this.sender = new PacedSender({
      clock: o.clock,
      log: o.log,
      budget: this.budget,
      gate: this.gate,
      retry: o.retry,
      defaultRetryAfterMs: o.defaultRetryAfterMs,
      counts: this.counts,
    });
    this.pq = new PQueue<FairLanes, LaneOptions>({
      concurrency: o.concurrency,
      queueClass: fairQueueClass(this.weights),
    });
    // Every queued request listens to this signal: their number is bounded by the callers, not by 10.
    setMaxListeners(0, this.closing.signal);
  }

  /**
   * Sends a request through the queue, retrying as docs/rate-limits.md says. Resolves
   * with a 2xx response; anything else ends in a typed ApiError (or the
   * signal's reason when aborted).
   */
  async request(req: QueuedRequest): Promise<RawResponse> {
    if (this.closing.signal.aborted) throw this.closing.signal.reason;
    const link = req.signal ? linkedSignal(req.signal, this.closing.signal) : undefined;
    const signal = link?.signal ?? this.closing.signal;
    this.active += 1;
    try {
      const { clock, log, retry } = this.options;
      const lane = req.lane === undefined ? undefined : this.#laneCounts(req.lane);
      return await sendWithRetries(req, signal, {
        attempt: (priority) =>
          this.pq.add(() => this.sender.attempt(req, signal, priority, lane), { priority, signal, lane: req.lane }),
        retry,
        clock,
        log,
        counts: this.counts,
        ...(lane ? { lane } : {}),
      });
    } finally {
      link?.unlink();
      this.active -= 1;
      if (this.active === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /**
   * Gives a lane (an account sharing this queue) its weight: while lanes wait for slots,
   * each gets slots in proportion to its weight (./fair-lanes.ts). @default 1
   */
  setLaneWeight(lane: string, weight: number): void {
    this.weights.set(lane, weight);
  }

  /** The server's rate window as the queue acts on it: configured, learned, or the documented 60 s assumed. */
  rateWindow(): { ms: number; source: 'configured' | 'learned' | 'assumed' } {
    return this.budget.window;
  }

  /** What the queue spent of the rate window so far, for the next process to start from (RateSpend). */
  spend(): RateSpend | undefined {
    return this.budget.spend(this.options.clock.now());
  }

  /**
   * Counters for the run summary: the whole queue's, or one lane's (an account's) requests, retries
   * and 429s; the waits and pauses are the queue's either way (every lane waits in them).
   */
  stats(lane?: string): RequestStats {
    const now = this.options.clock.now();
    const counts = lane === undefined ? this.counts : this.#laneCounts(lane);
    return {
      requests: counts.requests,
      byStatus: { ...counts.byStatus },
      retries: counts.retries,
      rateLimited: counts.rateLimited,
      rateLimitProbes: counts.rateLimitProbes,
      rateLimitLearning: counts.rateLimitLearning,
      waitedMs: Math.round(this.gate.waitedMsAt(now)),
      rateLimitPausedMs: Math.round(this.gate.pausedMs),
      rateLimitPauseLeftMs: Math.round(this.gate.pauseLeftMs(now)),
      rateLimitedForMs: this.counts.limitedSince === undefined ? 0 : Math.max(0, now - this.counts.limitedSince),
    };
  }

  #laneCounts(lane: string): RequestCounts {
    let counts = this.laneCounts.get(lane);
    if (!counts) {
      counts = emptyCounts();
      this.laneCounts.set(lane, counts);
    }
    return counts;
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

function emptyCounts(): RequestCounts {
  return { requests: 0, retries: 0, rateLimited: 0, rateLimitProbes: 0, rateLimitLearning: 0, byStatus: {} };
}
