import { BlindOpening, countedIn } from './blind-opening.js';
import type { BudgetObservation } from './budget-observation.js';
import { OthersPace } from './others-pace.js';
import { OurRequests } from './our-requests.js';
import { ProbeBackoff } from './probe-backoff.js';
import { WindowLength } from './window-length.js';
import { shareOfWindow, windowEndFromRetryAfter } from './window-math.js';
import { startInWindow } from './window-room.js';
import type { LimitedObservation, Window, WindowBudgetOptions, WindowSource } from './window-types.js';

/**
 * How many requests may start now, from what the server says: the limiter is a
 * fixed window per client IP (API document, Limits: "keyed by client IP, not by
 * token"; the sandbox opens it at the IP's first request, as Laravel does).
 *
 * Rule: within a window, start as fast as concurrency allows while both
 * - our share is not spent: `requests_per_minute` scaled to the window, and
 * - the server has room: its last X-RateLimit-Remaining, less our requests
 *   started since, less what the other clients on the IP are expected to send
 *   before the window ends (OthersPace), less a reserve for them while they are
 *   seen (alone on the IP, the whole window is ours to spend);
 * then wait for the window's end rather than meet a 429: spending the share
 * early is what a fixed window rewards. The window's length: WindowLength.
 * Until it is known, the documented 60 s bounds our share, and when the
 * server's room runs out first a single probe finds where the window ends (it
 * succeeds in a new window, or its 429 says when the current one ends). A 429
 * that says nothing: ProbeBackoff.
 *
 * Times are what our clock read: when a window opened lies between the send of
 * the first request counted in it and the receipt of its response; we act on
 * the latest possible end, so waiting never wakes early.
 */

export type { BudgetObservation } from './budget-observation.js';
export type { LimitedObservation, WindowBudgetOptions, WindowSource } from './window-types.js';

export class WindowBudget {
  private readonly ours = new OurRequests();
  private win: Window | undefined;
  /** No response seen yet in the current window: starts from this seq on go blind. */
  private blindFrom = 1;
  private readonly length: WindowLength;
  private readonly others: OthersPace;
  private readonly probe = new ProbeBackoff();
  private readonly reserve: number;

  constructor(private readonly options: WindowBudgetOptions) {
    this.length = new WindowLength(options.windowMs);
    this.reserve = options.reserve ?? 1;
    this.others = new OthersPace(() => this.assumedMs, options.concurrency);
  }

  /** The window length acted on, and where it came from. */
  get window(): { ms: number; source: WindowSource } {
    return { ms: this.length.ms, source: this.length.source };
  }

  private get assumedMs(): number {
    return this.length.ms;
  }

  /** The other clients' measured pace, in requests per ms. */
  get othersRatePerMs(): number {
    return this.others.ratePerMs;
  }

  /** Latest possible end of the current window, when one is known. */
  get windowEnd(): number | undefined {
    const known = this.length.knownMs;
    return this.win && known !== undefined ? this.win.openHi + known : undefined;
  }

  /** Records that one of our requests starts now; returns its sequence number. */
  noteStart(now: number): number {
    const seq = this.ours.start(now, this.assumedMs);
    this.probe.started(seq);
    return seq;
  }

  /** A request ended without telling anything about the budget (network error, timeout). */
  noteFailed(seq: number): void {
    this.settle(seq);
    this.win?.blind?.lost(seq);
  }

  private settle(seq: number): void {
    this.ours.settle(seq);
    this.probe.settled(seq);
  }

  /**
   * What a reply that is not a 429 tells. Returns the end of a pause after a 429
   * that said nothing when this reply shows the server takes requests again
   * (ProbeBackoff): the caller cuts that pause short.
   */
  observe(o: BudgetObservation): number | undefined {
    this.settle(o.seq);
    const cut = this.probe.answered(o.sentAt, o.receivedAt);
    this.read(o);
    return cut;
  }

  private read(o: BudgetObservation): void {
    const prev = this.win;
    if (!prev) {
      if (o.seq >= this.blindFrom) this.openBlind(o);
      return;
    }
    if (prev.blind?.has(o.seq)) this.checkOpening(prev, o);
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
      this.others.learn(others, o.receivedAt - prev.receivedAt, o.receivedAt);
      Object.assign(prev, {
        remaining: o.remaining,
        uncertain: this.ours.inFlightBefore(o.seq),
        seq: o.seq,
        sentAt: o.sentAt,
        receivedAt: o.receivedAt,
      });
      return;
    }
    // A reset between prev and o: the old window was still open when prev reached the server.
    if (Number.isFinite(prev.openLo)) this.length.learn(prev.sentAt - prev.openHi, o.receivedAt - prev.openLo);
    this.win = this.newWindow(prev.sentAt, o, prev.seq + 1);
    this.others.newWindow();
  }

  /**
   * The first response in a window we entered without knowing its state. What it
   * counts beyond our requests that may be in it was sent by others before us.
   */
  private openBlind(o: BudgetObservation): void {
    const firstSent = this.ours.firstSentFrom(this.blindFrom, o.sentAt);
    const counted = countedIn(o);
    const blind = new BlindOpening(
      this.blindFrom,
      this.ours.seq,
      this.ours.mayBeCountedAt(o.receivedAt, this.assumedMs),
    );
    this.others.newWindow();
    const openLo = blind.ourOwn(counted) ? firstSent : Number.NEGATIVE_INFINITY;
    this.win = { ...this.newWindow(openLo, o, this.blindFrom), blind };
    if (blind.reply(o.seq, counted, 0)) this.othersCameFirst(this.win, o.receivedAt);
  }

  /** A later reply to one of the blind requests. */
  private checkOpening(win: Window, o: BudgetObservation): void {
    if (win.blind?.reply(o.seq, countedIn(o), this.ours.seq - win.blind.last)) this.othersCameFirst(win, o.receivedAt);
  }

  /**
   * Others were counted in the window before us (a `check` just before, an earlier run): it opened
   * before our requests, and with its length known a look follows whether they still send. With the
   * length unknown, spreading over the documented 60 s would cost most of a shorter window: their
   * pace, measured between our replies, is left to them instead.
   */
  private othersCameFirst(win: Window, at: number): void {
    win.openLo = Number.NEGATIVE_INFINITY;
    win.blind = undefined;
    if (this.length.knownMs !== undefined) this.others.sentBefore(at);
  }

  private newWindow(openLo: number, o: BudgetObservation, shareFromSeq: number): Window {
    return {
      openLo,
      openHi: o.receivedAt,
      remaining: o.remaining ?? Number.POSITIVE_INFINITY,
      uncertain: this.ours.inFlightBefore(o.seq),
      seq: o.seq,
      sentAt: o.sentAt,
      receivedAt: o.receivedAt,
      shareFromSeq,
      shareUntil: o.receivedAt + this.assumedMs,
    };
  }

  /**
   * A 429: how long to pause every request, and whether it was a probe's (a 429
   * the backoff cost). With Retry-After: that long, and the window is learned
   * from it when its opening is known (then the window's end, when it falls in
   * the last second of a Retry-After rounded up to whole seconds). Without: until the latest end of the
   * current window when the server showed it spent and its end is known; else
   * the 429 says nothing, and ProbeBackoff decides. A 429 whose own
   * X-RateLimit-Remaining is above 0 came from another limiter: the window is kept.
   */
  noteLimited(o: LimitedObservation): { waitMs: number; probe: boolean } {
    this.settle(o.seq);
    const win = this.win;
    win?.blind?.lost(o.seq);
    const roomLeft = o.remaining !== undefined && o.remaining > 0;
    if (o.retryAfterMs !== undefined) {
      let waitMs = o.retryAfterMs;
      if (!roomLeft) {
        if (win && Number.isFinite(win.openLo)) {
          const end = windowEndFromRetryAfter(o.sentAt, o.receivedAt, o.retryAfterMs, o.isDate === true);
          this.length.learn(end.lo - win.openHi, end.hi - win.openLo);
          // Delay-seconds are rounded up: the known end of the window, inside their last second, is sharper.
          const known = this.windowEnd;
          if (!o.isDate && known !== undefined && known >= end.lo && known < end.hi) waitMs = known - o.receivedAt;
        }
        this.windowEndsBy(o.receivedAt + waitMs);
      }
      return { waitMs, probe: false };
    }
    if (win && !roomLeft) {
      const end = this.windowEnd;
      const spent = o.remaining === 0 || win.remaining - (this.ours.seq - win.seq) < 1;
      if (spent && end !== undefined && end > o.receivedAt) {
        this.windowEndsBy(end);
        return { waitMs: end - o.receivedAt, probe: false };
      }
      if (o.remaining === 0) {
        Object.assign(win, { remaining: 0, uncertain: 0, seq: o.seq, sentAt: o.sentAt, receivedAt: o.receivedAt });
      }
    }
    return this.probe.limited(o.sentAt, o.receivedAt, this.assumedMs);
  }

  /** The pause asked for lasts until `at`, the window's end: what we knew of it is done, and every start before `at` was in it. */
  private windowEndsBy(at: number): void {
    this.enterBlind();
    this.ours.windowEnded(at);
  }

  private enterBlind(): void {
    this.win = undefined;
    this.blindFrom = this.ours.seq + 1;
    this.probe.unwant();
  }

  /**
   * Earliest time the next request may start: `now` or earlier to go at once,
   * a later time to wait for, +Infinity to wait for a response in flight.
   * While backing off from a 429 that said nothing, one request (the probe) at a time.
   */
  nextStartAt(now: number): number {
    if (this.probe.engaged && this.probe.out) return Number.POSITIVE_INFINITY;
    const at = this.startAt(now);
    if (this.probe.engaged && at <= now) this.probe.want();
    return at;
  }

  private startAt(now: number): number {
    let win = this.win;
    const end = this.windowEnd;
    // Past the latest end of a window we know, or a documented window's length after the last look
    // at one we do not: what we knew is stale, look afresh.
    if (win && now >= (end ?? win.shareUntil)) {
      if (end !== undefined && Number.isFinite(win.openLo)) this.ours.windowEnded(win.openLo + this.assumedMs);
      this.enterBlind();
      win = undefined;
    }
    const share = shareOfWindow(this.options.requestsPerMinute, this.assumedMs);
    if (!win) {
      return this.ours.inFlightFrom(this.blindFrom) < Math.min(this.options.concurrency, share)
        ? now
        : Number.POSITIVE_INFINITY;
    }
    const at = startInWindow({
      now,
      win,
      end,
      share,
      seq: this.ours.seq,
      lastStartAt: this.ours.lastStartAt,
      othersRatePerMs: this.others.rateAt(now),
      shared: this.others.sharing(now),
      reserve: this.reserve,
    });
    if (at !== 'spent') return at;
    // The server's room is spent and we do not know when it comes back: one probe, once every
    // answer is in, finds out.
    if (this.probe.out || this.ours.inFlightCount > 0) return Number.POSITIVE_INFINITY;
    this.probe.want();
    return now;
  }
}
