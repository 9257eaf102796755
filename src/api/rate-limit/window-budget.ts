import { OthersPace } from './others-pace.js';
import { DOCUMENTED_WINDOW_MS, shareOfWindow, windowEndFromRetryAfter, windowFromBounds } from './window-math.js';
import type { BudgetObservation, Window, WindowBudgetOptions, WindowSource } from './window-types.js';

/**
 * How many requests may start now, from what the server says: the limiter is a
 * fixed window per client IP (API document, Limits: "keyed by client IP, not by
 * token"; the sandbox opens it at the IP's first request, as Laravel does).
 *
 * Rule: within a window, start as fast as concurrency allows while both
 * - our share is not spent: `requests_per_minute` scaled to the window, and
 * - the server has room: its last X-RateLimit-Remaining, less our requests
 *   started since, less what the other clients on the IP are expected to send
 *   before the window ends (their measured pace), less a reserve for them
 *   while they are seen (alone on the IP, nobody needs it: the whole window is ours to spend);
 * then wait for the window's end rather than meet a 429. Spending the share
 * early and then waiting is what a fixed window rewards; spacing starts evenly
 * leaves most of a short run's window unused.
 *
 * The window's length is the configured one, or learned: from a reset of
 * X-RateLimit-Remaining seen between two of our requests, or from a 429's
 * Retry-After (the end of the window) against the window's known opening.
 * X-RateLimit-Limit is a count per window, never a rate. Until the length is
 * known, the documented 60 s bounds our share, and when the server's room runs
 * out first a single probe request finds where the window ends (it succeeds in
 * a new window, or its 429 says when the current one ends).
 *
 * Times are what our clock read: when a window opened lies between the send of
 * the first request counted in it and the receipt of its response; we act on
 * the latest possible end, so waiting never wakes early.
 */

/** Below this spacing, spreading our starts would only add timer waits: the room is ample. */
const SPREAD_MIN_GAP_MS = 5;

export type { BudgetObservation, WindowBudgetOptions, WindowSource } from './window-types.js';

export class WindowBudget {
  private seq = 0;
  private readonly inFlight = new Map<number, number>();
  private win: Window | undefined;
  /** No response seen yet in the current window: starts from this seq on go blind. */
  private blindFrom = 1;
  private windowMs: number | undefined;
  private readonly configured: boolean;
  /** What every observation so far says of the window's length: it lies in (lo, hi]. */
  private bounds = { lo: 0, hi: Number.POSITIVE_INFINITY };
  private probeWanted = false;
  private probeSeq: number | undefined;
  private readonly others: OthersPace;
  private readonly reserve: number;
  /** Others were seen on the IP until this time: spread our starts over the window instead of bursting. */
  private sharedUntil = Number.NEGATIVE_INFINITY;
  /** Others counted in the current window, summed between our responses. */
  private othersInWindow = 0;
  private lastStartAt: number | undefined;

  constructor(private readonly options: WindowBudgetOptions) {
    this.windowMs = options.windowMs;
    this.configured = options.windowMs !== undefined;
    this.reserve = options.reserve ?? 1;
    this.others = new OthersPace(() => this.assumedMs);
  }

  /** The window length acted on, and where it came from. */
  get window(): { ms: number; source: WindowSource } {
    if (this.windowMs === undefined) return { ms: DOCUMENTED_WINDOW_MS, source: 'assumed' };
    return { ms: this.windowMs, source: this.configured ? 'configured' : 'learned' };
  }

  private get assumedMs(): number {
    return this.windowMs ?? DOCUMENTED_WINDOW_MS;
  }

  /** The other clients' measured pace, in requests per ms. */
  get othersRatePerMs(): number {
    return this.others.ratePerMs;
  }

  /** Latest possible end of the current window, when one is known. */
  get windowEnd(): number | undefined {
    return this.win && this.windowMs !== undefined ? this.win.openHi + this.windowMs : undefined;
  }

  /** Records that one of our requests starts now; returns its sequence number. */
  noteStart(now: number): number {
    this.seq += 1;
    this.inFlight.set(this.seq, now);
    this.lastStartAt = now;
    if (this.probeWanted) {
      this.probeSeq = this.seq;
      this.probeWanted = false;
    }
    return this.seq;
  }

  /** A request ended without telling anything about the budget (network error, timeout). */
  noteFailed(seq: number): void {
    this.settle(seq);
  }

  private settle(seq: number): void {
    this.inFlight.delete(seq);
    if (this.probeSeq === seq) this.probeSeq = undefined;
  }

  observe(o: BudgetObservation): void {
    this.settle(o.seq);
    const prev = this.win;
    if (!prev) {
      if (o.seq >= this.blindFrom) this.openBlind(o);
      return;
    }
    if (o.seq < prev.seq) {
      // Overtaken by a newer reply, and one of its uncertain requests: counted before it (a higher
      // remaining, already in it) or after it (one more spent).
      prev.uncertain = Math.max(0, prev.uncertain - 1);
      if (o.seq >= prev.shareFromSeq && o.remaining !== undefined && o.remaining < prev.remaining) prev.remaining -= 1;
      return;
    }
    if (o.remaining === undefined || !Number.isFinite(prev.remaining)) return;
    const others = prev.remaining - o.remaining - (o.seq - prev.seq);
    const end = this.windowEnd;
    // A rise a reordering of our requests in flight cannot explain; or, for a request sent after
    // the previous reply came, any rise at all (the server counted it later, so one less); or a
    // request sent after the latest end of a known window.
    const fresh =
      others < -this.options.concurrency ||
      (o.sentAt >= prev.receivedAt && o.remaining >= prev.remaining) ||
      (end !== undefined && o.sentAt >= end);
    if (!fresh) {
      this.others.learn(others, o.receivedAt - prev.receivedAt);
      this.othersInWindow += others;
      if (this.othersInWindow > this.options.concurrency) this.sawOthers(o.receivedAt);
      Object.assign(prev, {
        remaining: o.remaining,
        uncertain: this.inFlightBefore(o.seq),
        seq: o.seq,
        sentAt: o.sentAt,
        receivedAt: o.receivedAt,
      });
      return;
    }
    // A reset between prev and o: the old window was still open when prev reached the server.
    if (!this.configured && Number.isFinite(prev.openLo)) {
      this.learn(prev.sentAt - prev.openHi, o.receivedAt - prev.openLo);
    }
    this.win = this.newWindow(prev.sentAt, o, prev.seq + 1);
    this.othersInWindow = 0;
  }

  private sawOthers(at: number): void {
    this.sharedUntil = Math.max(this.sharedUntil, at + 2 * this.assumedMs);
  }

  /** The first response in a window we entered without knowing its state. */
  private openBlind(o: BudgetObservation): void {
    const firstSent = this.inFlightOrNow(this.blindFrom, o.sentAt);
    const ours = this.seq - this.blindFrom + 1;
    // Nobody else counted in it: one of our blind requests opened it.
    const ourOwn = o.remaining !== undefined && o.limit !== undefined && o.limit - o.remaining <= ours;
    this.othersInWindow = 0;
    if (o.remaining !== undefined && o.limit !== undefined && o.limit - o.remaining > ours) {
      this.sawOthers(o.receivedAt);
    }
    this.win = this.newWindow(ourOwn ? firstSent : Number.NEGATIVE_INFINITY, o, this.blindFrom);
  }

  private newWindow(openLo: number, o: BudgetObservation, shareFromSeq: number): Window {
    return {
      openLo,
      openHi: o.receivedAt,
      remaining: o.remaining ?? Number.POSITIVE_INFINITY,
      uncertain: this.inFlightBefore(o.seq),
      seq: o.seq,
      sentAt: o.sentAt,
      receivedAt: o.receivedAt,
      shareFromSeq,
      shareUntil: o.receivedAt + this.assumedMs,
    };
  }

  private inFlightBefore(seq: number): number {
    let n = 0;
    for (const s of this.inFlight.keys()) if (s < seq) n += 1;
    return n;
  }

  private inFlightOrNow(seq: number, fallback: number): number {
    let first = fallback;
    for (const [s, at] of this.inFlight) if (s >= seq && at < first) first = at;
    return first;
  }

  /** Narrows the window's bounds; bounds that contradict the earlier ones (the deployment changed) replace them. */
  private learn(lo: number, hi: number): void {
    if (this.configured || !(hi > 0)) return;
    let next = { lo: Math.max(this.bounds.lo, lo, 0), hi: Math.min(this.bounds.hi, hi) };
    if (next.lo >= next.hi) next = { lo: Math.max(0, lo), hi };
    this.bounds = next;
    this.windowMs = windowFromBounds(next.lo, next.hi);
  }

  /**
   * A 429: learns the window from Retry-After when its opening is known, and
   * returns how long to pause every request. Without a readable Retry-After:
   * until the latest possible end of the current window when it is known, else
   * one whole window (which always reaches a fresh one).
   */
  noteLimited(o: { seq: number; sentAt: number; receivedAt: number; retryAfterMs?: number; isDate?: boolean }): number {
    this.settle(o.seq);
    const win = this.win;
    let waitMs: number;
    if (o.retryAfterMs !== undefined) {
      if (win && Number.isFinite(win.openLo)) {
        const end = windowEndFromRetryAfter(o.sentAt, o.receivedAt, o.retryAfterMs, o.isDate === true);
        this.learn(end.lo - win.openHi, end.hi - win.openLo);
      }
      waitMs = o.retryAfterMs;
    } else {
      const end = this.windowEnd;
      waitMs = end !== undefined && end > o.receivedAt ? end - o.receivedAt : this.assumedMs;
    }
    this.enterBlind();
    return waitMs;
  }

  private enterBlind(): void {
    this.win = undefined;
    this.blindFrom = this.seq + 1;
    this.probeWanted = false;
  }

  /**
   * Earliest time the next request may start: `now` or earlier to go at once,
   * a later time to wait for, +Infinity to wait for a response in flight.
   */
  nextStartAt(now: number): number {
    let win = this.win;
    const end = this.windowEnd;
    // Past the latest end of a window we know, or a documented window's length after the last look
    // at one we do not: what we knew is stale, look afresh.
    if (win && now >= (end ?? win.shareUntil)) {
      this.enterBlind();
      win = undefined;
    }
    const share = shareOfWindow(this.options.requestsPerMinute, this.assumedMs);
    if (!win) {
      let blind = 0;
      for (const s of this.inFlight.keys()) if (s >= this.blindFrom) blind += 1;
      return blind < Math.min(this.options.concurrency, share) ? now : Number.POSITIVE_INFINITY;
    }
    const shareLeft = share - (this.seq - win.shareFromSeq + 1);
    const othersToCome = this.othersRatePerMs * Math.max(0, (end ?? win.shareUntil) - now);
    const reserve = now < this.sharedUntil ? this.reserve : 0;
    const serverLeft = win.remaining - win.uncertain - (this.seq - win.seq) - othersToCome - reserve;
    if (shareLeft >= 1 && serverLeft >= 1) {
      if (now >= this.sharedUntil || this.lastStartAt === undefined) return now;
      // Others on the IP: spread what is left over the rest of the window, so their requests keep
      // finding room and their pace stays measured; the one after those falls on the window's end.
      const until = end ?? win.shareUntil;
      const available = Math.min(shareLeft, serverLeft);
      const gap = Math.max(0, until - this.lastStartAt) / (available + 1);
      // Room for a start every few ms to the window's end: nobody is short of room, go at once.
      if (gap < SPREAD_MIN_GAP_MS) return now;
      return Math.max(now, this.lastStartAt + gap);
    }
    if (end !== undefined) return end;
    if (serverLeft >= 1) return win.shareUntil;
    // The server's room is spent and we do not know when it comes back: one probe, once every
    // answer is in, finds out.
    if (this.probeSeq !== undefined || this.inFlight.size > 0) return Number.POSITIVE_INFINITY;
    this.probeWanted = true;
    return now;
  }
}
