/** Shapes the WindowBudget works with (see window-budget.ts). */

import type { BlindOpening } from './blind-opening.js';
import type { RateSpend } from './rate-spend.js';

export interface WindowBudgetOptions {
  requestsPerMinute: number;
  /** The configured window (`source.rate_limit.window_seconds`); undefined: learned. */
  windowMs?: number;
  /** What an earlier process of the deployment spent (RateSpend): this one starts from it. */
  prior?: RateSpend;
  /** Requests in flight at once: starts allowed before a window's first response, and how far responses reorder. */
  concurrency: number;
  /** Requests of the server's budget left in each window for the others, while others are seen. @default 1 */
  reserve?: number;
}

/** A 429, as the budget reads it. */
export interface LimitedObservation {
  seq: number;
  sentAt: number;
  receivedAt: number;
  /** Retry-After in ms; undefined when absent or unreadable. */
  retryAfterMs?: number;
  /** Retry-After was an HTTP date (whole seconds either way), not delay-seconds. */
  isDate?: boolean;
  /** The 429's own X-RateLimit-Remaining: above 0, the window has room and another limiter refused. */
  remaining?: number;
}

export interface Window {
  /** Bounds of when the server opened it (openLo -Infinity: unknown). */
  openLo: number;
  openHi: number;
  /** The lowest X-RateLimit-Remaining a reply in it showed (the latest count), and when that reply came. */
  remaining: number;
  remainingAt: number;
  /** The reply of our latest request answered in it: its remaining (what the others' pace is measured from), its times. */
  seqRemaining: number;
  /** Our requests started before that one and not answered yet: counted or not, `remaining` cannot say. */
  uncertain: number;
  seq: number;
  sentAt: number;
  receivedAt: number;
  /** Our first request that may count in it, and the end of the stretch our share is counted over. */
  shareFromSeq: number;
  shareUntil: number;
  /** An earlier process's last window, this one too: what it started in it, against our share. */
  priorSent?: number;
  /** Opened after a reset we saw: the lowest remaining the window before showed. */
  lowestBefore?: number;
  /** Opened blind: our requests sent before its first reply, and what they tell of who opened it. */
  blind?: BlindOpening;
}

// Declared beside the record it is part of (rate-spend.ts), so that file needs nothing of this one.
export type { WindowSource } from './rate-spend.js';
