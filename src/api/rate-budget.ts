/**
 * Adaptive part of the pacing: what the server's X-RateLimit-* headers say about
 * the budget this IP has left, shared with every other client on it (see Limits:
 * the limit is "keyed by client IP, not by token"). Two rules, the slower wins:
 *
 * 1. Share. Between two of our responses, `remaining` drops by our own requests
 *    plus everyone else's: the difference measures the other clients' pace
 *    (a moving average over about one window). We pace at the allowed rate less
 *    theirs. Two steady clients whose paces add up to less than the limit never
 *    fill a fixed window, wherever its edges fall.
 * 2. Spread. Within the current window, what the server says is left (less our
 *    requests started since, less what the others will spend in the rest of the
 *    window at their measured pace, less a reserve of one) is spread evenly
 *    over the time the window has left; nothing left: wait for its end. This
 *    catches bursts, and the first window, before the average has settled.
 *
 * The window: the server counts requests in a fixed window of `windowMs`
 * starting at the IP's first request. We do not see its start, so we take an
 * upper bound (when we got our first response in it) and so an upper bound of
 * its end. A window is new when a request was sent after the previous one's
 * estimated end, or when `remaining` rises more than reordering can explain.
 * Alone on the IP, neither rule is ever slower than plain pacing.
 */

export interface RateBudgetOptions {
  /** The server's window. @default 60000 (api.global: per 1 minute, see Limits) */
  windowMs: number;
  /** Pacing margin (see defaultPacingMargin). */
  margin: number;
  /** Our own paced rate in requests per ms (margin already taken off). */
  baseRatePerMs: number;
  /** Requests that may be in flight at once: how far `remaining` can appear out of order. */
  reorderSlack: number;
  /** Requests left for others at the end of each window. @default 1 */
  reserve?: number;
}

export interface BudgetObservation {
  /** X-RateLimit-Remaining of the response. */
  remaining: number;
  /** X-RateLimit-Limit of the response, when sent. */
  limit?: number;
  /** Sequence number our request got from noteStart(). */
  seq: number;
  /** When that request started. */
  sentAt: number;
  /** When its response arrived. */
  receivedAt: number;
}

export class RateBudget {
  private seq = 0;
  private windowEndAt: number | undefined;
  private last: BudgetObservation | undefined;
  private limit: number | undefined;
  /** Moving sums of the others' requests and of the time they were counted over (ms). */
  private othersSum = 0;
  private timeSum: number;
  private readonly reserve: number;

  constructor(private readonly options: RateBudgetOptions) {
    this.reserve = options.reserve ?? 1;
    // Prior: a tenth of a window in which the others sent nothing, so one noisy pair cannot stall us.
    this.timeSum = options.windowMs / 10;
  }

  /** Records that one of our requests starts; returns its sequence number. */
  noteStart(): number {
    this.seq += 1;
    return this.seq;
  }

  observe(o: BudgetObservation): void {
    const prev = this.last;
    if (prev && o.seq < prev.seq) return; // an older response overtaken by a newer one
    if (o.limit !== undefined) this.limit = o.limit;
    const others = prev ? prev.remaining - o.remaining - (o.seq - prev.seq) : 0;
    const fresh =
      !prev || this.windowEndAt === undefined || o.sentAt >= this.windowEndAt || others < -this.options.reorderSlack;
    if (prev && !fresh) this.learn(others, o.receivedAt - prev.receivedAt);
    if (fresh) this.windowEndAt = o.receivedAt + this.options.windowMs;
    this.last = o;
  }

  private learn(others: number, dt: number): void {
    if (dt <= 0) {
      this.othersSum += others;
      return;
    }
    const decay = Math.exp(-dt / this.options.windowMs);
    this.othersSum = this.othersSum * decay + others;
    this.timeSum = this.timeSum * decay + dt;
  }

  /** A 429 ends what we knew of the window (the server's pause takes over); the others' pace is kept. */
  forget(): void {
    this.windowEndAt = undefined;
    this.last = undefined;
  }

  /** The estimated end of the current window, if one is known. */
  get windowEnd(): number | undefined {
    return this.windowEndAt;
  }

  /** The other clients' measured pace, in requests per ms. */
  get othersRatePerMs(): number {
    return Math.max(0, this.othersSum / this.timeSum);
  }

  /**
   * Earliest time the next request may start according to the server's budget,
   * or -Infinity when the budget does not constrain it.
   * @param lastStart when our previous request started (undefined: none yet)
   */
  earliestNext(lastStart: number | undefined, now: number): number {
    if (lastStart === undefined && this.last === undefined) return Number.NEGATIVE_INFINITY;
    const from = lastStart ?? now;
    const allowed =
      this.limit && this.limit > 0
        ? Math.min(this.options.baseRatePerMs, (this.limit * (1 - this.options.margin)) / this.options.windowMs)
        : this.options.baseRatePerMs;
    // Never below a twentieth of the allowed rate: the spread rule still guards the window.
    const share = Math.max(allowed / 20, allowed - this.othersRatePerMs);
    const byShare = from + 1 / share;
    const end = this.windowEndAt;
    if (end === undefined || this.last === undefined || now >= end) return byShare;
    const timeLeft = Math.max(0, end - from);
    const othersToCome = this.othersRatePerMs * timeLeft;
    const available = this.last.remaining - (this.seq - this.last.seq) - othersToCome - this.reserve;
    if (available < 1) return end;
    // `available` starts fit before the window's end; the one after them falls on it, the
    // first of the next window.
    return Math.max(byShare, from + timeLeft / (available + 1));
  }
}
