import type { RequestStats } from '../api/types.js';

/** Requests and 429s of one rate window. */
export interface WindowCount {
  requests: number;
  rate_limited: number;
}

/**
 * A run's requests and 429s second by second (sampled from the queue's counters
 * with the progress), counted into rate windows at the end for the status page's
 * chart. Windows are counted from the run's start: the queue opens a window with
 * the run's first request and starts the next one when the last has ended, so
 * they fall close to the server's own.
 */
export class RequestTimeline {
  readonly #requests: number[] = [];
  readonly #limited: number[] = [];
  #seenRequests = 0;
  #seenLimited = 0;

  constructor(private readonly startedMs: number) {}

  sample(nowMs: number, stats: Pick<RequestStats, 'requests' | 'rateLimited'>): void {
    const second = Math.max(0, Math.floor((nowMs - this.startedMs) / 1000));
    const requests = stats.requests - this.#seenRequests;
    const limited = stats.rateLimited - this.#seenLimited;
    if (requests <= 0 && limited <= 0) return;
    this.#requests[second] = (this.#requests[second] ?? 0) + requests;
    this.#limited[second] = (this.#limited[second] ?? 0) + limited;
    this.#seenRequests = stats.requests;
    this.#seenLimited = stats.rateLimited;
  }

  /** The counts per window of `windowMs`, from the run's start to its last request. */
  windows(windowMs: number): WindowCount[] {
    const perWindow = Math.max(1, Math.round(windowMs / 1000));
    const out: WindowCount[] = [];
    this.#requests.forEach((requests, second) => {
      const i = Math.floor(second / perWindow);
      while (out.length <= i) out.push({ requests: 0, rate_limited: 0 });
      const w = out[i] as WindowCount;
      w.requests += requests;
      w.rate_limited += this.#limited[second] ?? 0;
    });
    return out;
  }
}
