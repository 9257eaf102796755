import type { RequestStats } from '../api/index.js';

/** Requests and 429s of one rate window. */
export interface WindowCount {
  requests: number;
  rate_limited: number;
}

/** How finely the timeline counts: a quarter of a second. */
export const TIMELINE_SLOT_MS = 250;

/**
 * A run's requests and 429s over time (sampled from the queue's counters every
 * TIMELINE_SLOT_MS), counted into rate windows at the end for the status page's
 * chart. Windows are counted from the run's first request: the queue opens a
 * window with it and starts the next one when the last has ended, so they fall
 * close to the server's own.
 */
export class RequestTimeline {
  readonly #requests: number[] = [];
  readonly #limited: number[] = [];
  #seenRequests = 0;
  #seenLimited = 0;

  constructor(private readonly startedMs: number) {}

  sample(nowMs: number, stats: Pick<RequestStats, 'requests' | 'rateLimited'>): void {
    const slot = Math.max(0, Math.floor((nowMs - this.startedMs) / TIMELINE_SLOT_MS));
    const requests = stats.requests - this.#seenRequests;
    const limited = stats.rateLimited - this.#seenLimited;
    if (requests <= 0 && limited <= 0) return;
    this.#requests[slot] = (this.#requests[slot] ?? 0) + requests;
    this.#limited[slot] = (this.#limited[slot] ?? 0) + limited;
    this.#seenRequests = stats.requests;
    this.#seenLimited = stats.rateLimited;
  }

  /** The counts per window of `windowMs`, from the first request to the last. */
  windows(windowMs: number): WindowCount[] {
    const perWindow = Math.max(1, windowMs / TIMELINE_SLOT_MS);
    const out: WindowCount[] = [];
    let first: number | undefined;
    this.#requests.forEach((requests, slot) => {
      first ??= slot;
      const i = Math.floor((slot - first) / perWindow);
      while (out.length <= i) out.push({ requests: 0, rate_limited: 0 });
      const w = out[i] as WindowCount;
      w.requests += requests;
      w.rate_limited += this.#limited[slot] ?? 0;
    });
    return out;
  }
}
