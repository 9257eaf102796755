/**
 * Who opened a window we entered blind: our requests sent before its first
 * reply, and what their replies count (X-RateLimit-Limit less -Remaining).
 *
 * A reply counting more than all our requests that may be in the window shows
 * at once that others were counted. When fewer of theirs than our requests in
 * flight came first, no single reply can tell; but the first of ours the
 * server counted carries count 1 + everything counted before it, so once every
 * blind reply is in, the lowest count says exactly whether anyone (others, or
 * an earlier request of ours) came first.
 */
import type { BudgetObservation } from './budget-observation.js';

/** What a reply counts in the window: X-RateLimit-Limit less X-RateLimit-Remaining, when both came. */
export function countedIn(o: BudgetObservation): number | undefined {
  return o.remaining !== undefined && o.limit !== undefined ? o.limit - o.remaining : undefined;
}

export class BlindOpening {
  private waiting: number;
  private lowest = Number.POSITIVE_INFINITY;
  /** A blind request ended without a count (a 429, a network error): the lowest may be missing. */
  private incomplete = false;

  /**
   * @param first  the first blind request's sequence number
   * @param last   the last one's (sent before the window's first reply)
   * @param mayBeOurs our requests, blind or earlier, that may be counted in the window
   * @param floor the earliest the window may have opened, whoever opened it: after a reset, when the
   *   last request counted in the window before was sent; -Infinity when nothing was seen before
   */
  constructor(
    readonly first: number,
    readonly last: number,
    private readonly mayBeOurs: number,
    readonly floor = Number.NEGATIVE_INFINITY,
  ) {
    this.waiting = last - first + 1;
  }

  /**
   * Whether the window's first reply shows one of the blind requests opened it:
   * it counts no more than they are, and no earlier request of ours may be in it.
   */
  ourOwn(counted: number | undefined): boolean {
    const blind = this.last - this.first + 1;
    return counted !== undefined && counted <= blind && this.mayBeOurs <= blind;
  }

  /** Whether `seq` is one of the blind requests. */
  has(seq: number): boolean {
    return seq >= this.first && seq <= this.last;
  }

  /**
   * A blind request's reply counting `counted` (undefined: no such headers);
   * `startedSince` of ours started after the blind ones. True when it shows
   * that others were counted in the window before us.
   */
  reply(seq: number, counted: number | undefined, startedSince: number): boolean {
    if (!this.has(seq)) return false;
    this.waiting -= 1;
    if (counted === undefined) {
      this.incomplete = true;
      return false;
    }
    if (counted > this.mayBeOurs + startedSince) return true;
    this.lowest = Math.min(this.lowest, counted);
    const ours = this.last - this.first + 1;
    return this.waiting === 0 && !this.incomplete && this.lowest - 1 > this.mayBeOurs - ours;
  }

  /** A blind request ended without a count. */
  lost(seq: number): void {
    if (!this.has(seq)) return;
    this.waiting -= 1;
    this.incomplete = true;
  }
}
