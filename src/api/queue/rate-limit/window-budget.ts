import { BlindOpening, countedIn } from './blind-opening.js';
import type { BudgetObservation } from './budget-observation.js';
import { OthersPace } from './others-pace.js';
import { OurRequests } from './our-requests.js';
import { ProbeBackoff } from './probe-backoff.js';
import { PriorWindow, type RateSpend } from './rate-spend.js';
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
export type { RateSpend } from './rate-spend.js';
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
  /** The last window an earlier process spent, until this process sees its own first window. */
  private prior: PriorWindow | undefined;
  /** A 429's pause asked us to wait until then: the window it refused in ends by then. */
  private spentUntil: number | undefined;

  constructor(private readonly options: WindowBudgetOptions) {
    this.length = new WindowLength(options.windowMs);
    this.reserve = options.reserve ?? 1;
    this.others = new OthersPace(() => this.assumedMs, options.concurrency);
    const prior = options.prior;
    if (prior?.windowSource === 'learned') this.length.adopt(prior.windowMs);
    if (prior?.window) this.prior = new PriorWindow(prior.window, () => this.assumedMs);
  }

  /**
   * What this process spent, for the next one to start from (RateSpend): the window length, and
   * the last window's opening, room left and our starts in it, as known at `now`.
   */
  spend(now: number): RateSpend | undefined {
    const lastStartAt = this.ours.lastStartAt;
    if (lastStartAt === undefined) return undefined;
    const base: RateSpend = { windowMs: this.length.ms, windowSource: this.length.source, lastStartAt };
    const win = this.win;
    if (win && Number.isFinite(win.remaining)) {
      const window = {
        openedBy: win.openHi,
        remaining: Math.max(0, win.remaining - (this.ours.seq - win.seq)),
        sent: this.ours.seq - win.shareFromSeq + 1 + (win.priorSent ?? 0),
      };
      return { ...base, window: Number.isFinite(win.openLo) ? { openedAfter: win.openLo, ...window } : window };
    }
    // Paused until a window's end (a 429): whoever starts before it meets the same refusal.
    if (this.spentUntil !== undefined && this.spentUntil > now) {
      return { ...base, window: { openedBy: this.spentUntil - this.length.ms, remaining: 0, sent: 0 } };
    }
    return base;
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
    if (this.countedBefore(prev, o)) {
      if (o.seq < prev.seq) prev.uncertain = Math.max(0, prev.uncertain - 1);
      prev.blind?.lost(o.seq);
      return;
    }
    if (o.seq < prev.shareFromSeq) {
      // Sent before the window: counted in the one before it, or in this one, its count cannot say.
      prev.uncertain = Math.max(0, prev.uncertain - 1);
      return;
    }
    if (o.remaining !== undefined && Number.isFinite(prev.remaining) && this.isReset(prev, o, o.remaining)) {
      // The old window was still open when prev reached the server.
      if (Number.isFinite(prev.openLo)) this.length.learn(prev.sentAt - prev.openHi, o.receivedAt - prev.openLo);
      this.others.newWindow();
      this.openAfterReset(prev, o);
      return;
    }
    if (prev.blind?.has(o.seq)) this.checkOpening(prev, o);
    if (o.seq < prev.seq) {
      // Overtaken by a newer reply, and one of its uncertain requests: counted before it (a higher
      // remaining, already in it) or after it (a lower one, the latest count now).
      prev.uncertain = Math.max(0, prev.uncertain - 1);
      if (o.remaining === undefined) return;
      if (o.remaining < prev.seqRemaining) prev.seqRemaining -= 1;
      this.lower(prev, o.remaining, o.receivedAt);
      return;
    }
    if (o.remaining === undefined || !Number.isFinite(prev.remaining)) return;
    this.others.learn(
      prev.seqRemaining - o.remaining - (o.seq - prev.seq),
      o.receivedAt - prev.receivedAt,
      o.receivedAt,
    );
    Object.assign(prev, {
      seqRemaining: o.remaining,
      uncertain: this.ours.inFlightBefore(o.seq),
      seq: o.seq,
      sentAt: o.sentAt,
      receivedAt: o.receivedAt,
    });
    this.lower(prev, o.remaining, o.receivedAt);
  }

  /**
   * Whether `o` was counted in a window after `win`: a rise above the lowest count that a reordering
   * of our requests cannot explain (whether or not later requests of ours were answered first); or,
   * for a request sent after the lowest count came, any rise at all (the server counted it later,
   * so one less); or a request sent after the latest end of a known window.
   */
  private isReset(win: Window, o: BudgetObservation, remaining: number): boolean {
    const end = this.windowEnd;
    return (
      remaining - win.remaining > this.reorderable(o, win.remainingAt) ||
      (o.sentAt >= win.remainingAt && remaining >= win.remaining) ||
      (end !== undefined && o.sentAt >= end)
    );
  }

  /**
   * Whether `o`, sent before we saw `win` open after a reset, was counted in the window before it:
   * its remaining is nearer that window's lowest than this one's. Read as this window's, it would
   * take the old count for this one's (a wait for nothing) and the next reply for a reset.
   */
  private countedBefore(win: Window, o: BudgetObservation): boolean {
    return (
      win.lowestBefore !== undefined &&
      o.sentAt < win.openHi &&
      o.remaining !== undefined &&
      o.remaining - win.lowestBefore < win.remaining - o.remaining
    );
  }

  /**
   * How far above the lowest count a reply of this window may be: the requests of ours the server
   * counted after `o` and before the lowest, each one ours (the others' only lower it). They were in
   * flight when `o` was sent (at most `concurrency - 1` besides it), or started between then and the
   * lowest count's reply: a slow reply is overtaken by more than the requests in flight at once.
   */
  private reorderable(o: BudgetObservation, lowestAt: number): number {
    return this.options.concurrency - 1 + Math.max(0, this.ours.startedBetween(o.sentAt, lowestAt) - 1);
  }

  /**
   * The first reply of a window that followed one we saw: it opened after `prev` was counted, and,
   * when no more is counted in it than our requests sent since, with the first of them (as a
   * window entered blind, below). Taken to open at `prev`'s send, a gap between the two (a sync
   * that paused, a slow caller) would leave its end unknown to a minute, and its 429 would teach
   * nothing: the next window would cost a 429 more.
   */
  private openAfterReset(prev: Window, o: BudgetObservation): void {
    // `o` may have been overtaken by replies counted in the old window: the new one counts from it.
    const from = Math.min(o.seq, prev.seq + 1);
    this.openWindow(o, new BlindOpening(from, this.ours.seq, this.ours.seq - from + 1, prev.sentAt));
    (this.win as Window).lowestBefore = prev.remaining;
  }

  /**
   * The first response in a window we entered without knowing its state. What it
   * counts beyond our requests that may be in it was sent by others before us.
   */
  private openBlind(o: BudgetObservation): void {
    this.others.newWindow();
    const mayBeOurs = this.ours.mayBeCountedAt(o.receivedAt, this.assumedMs);
    // Counted in an earlier process's last window: surely (counted before it can have ended), or
    // as the count says (it went on from where that process left it, where a new window would
    // count afresh). Then it opened when that process saw it open, and that process's starts in
    // it are spent of our share.
    const p = this.prior;
    this.prior = undefined;
    const prior =
      p &&
      o.remaining !== undefined &&
      (p.surelyOpen(o.receivedAt) || (p.mayBeOpen(o.sentAt) && o.remaining < p.remaining))
        ? p
        : undefined;
    this.openWindow(o, new BlindOpening(this.blindFrom, this.ours.seq, mayBeOurs, prior?.openedAfter));
    const win = this.win;
    if (prior && win && win.openLo === prior.openedAfter) {
      win.openHi = Math.min(win.openHi, prior.openedBy);
      win.shareUntil = Math.min(win.shareUntil, prior.end);
      win.priorSent = prior.sent;
    }
  }

  /**
   * `o` is the first reply of a window: who opened it, as far as `o` tells. A count of 1 is `o`
   * alone: it opened the window, between its send and its reply (a request of ours sent less than a
   * window before may be in flight, or counted in the window before: the count says which).
   */
  private openWindow(o: BudgetObservation, blind: BlindOpening): void {
    const counted = countedIn(o);
    const firstSent = this.ours.firstSentFrom(blind.first, o.sentAt);
    const openLo = counted === 1 ? o.sentAt : blind.ourOwn(counted) ? firstSent : blind.floor;
    this.win = { ...this.newWindow(openLo, o, blind.first), blind };
    if (blind.reply(o.seq, counted, 0)) this.othersCameFirst(this.win, o.receivedAt);
  }

  /** A later reply to one of the blind requests; one counting 1 opened the window. */
  private checkOpening(win: Window, o: BudgetObservation): void {
    const counted = countedIn(o);
    if (win.blind?.reply(o.seq, counted, this.ours.seq - win.blind.last)) this.othersCameFirst(win, o.receivedAt);
    else if (counted === 1 && win.blind && win.openLo < o.sentAt) win.openLo = o.sentAt;
  }

  /**
   * Others were counted in the window before us (a `check` just before, an earlier run): it opened
   * before our requests, and with its length known a look follows whether they still send. With the
   * length unknown, spreading over the documented 60 s would cost most of a shorter window: their
   * pace, measured between our replies, is left to them instead.
   */
  private othersCameFirst(win: Window, at: number): void {
    win.openLo = win.blind?.floor ?? Number.NEGATIVE_INFINITY;
    win.blind = undefined;
    if (this.length.knownMs !== undefined) this.others.sentBefore(at);
  }

  /**
   * A reply counted in `win` showed `remaining`. The lowest shown is the latest count: a higher one
   * came from a request counted before it, its reply overtaken on the way back. Taken as the count,
   * it would lend us the requests counted since, and each of them would meet a 429.
   */
  private lower(win: Window, remaining: number, at: number): void {
    if (remaining >= win.remaining) return;
    win.remaining = remaining;
    win.remainingAt = at;
  }

  private newWindow(openLo: number, o: BudgetObservation, shareFromSeq: number): Window {
    return {
      openLo,
      openHi: o.receivedAt,
      remaining: o.remaining ?? Number.POSITIVE_INFINITY,
      remainingAt: o.receivedAt,
      seqRemaining: o.remaining ?? Number.POSITIVE_INFINITY,
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
        const prior = win ? undefined : this.prior;
        if (prior && Number.isFinite(prior.openedAfter)) {
          // A look into a window an earlier run opened: refused, it is still that window.
          const end = windowEndFromRetryAfter(o.sentAt, o.receivedAt, o.retryAfterMs, o.isDate === true);
          this.length.learn(end.lo - prior.openedBy, end.hi - prior.openedAfter);
        }
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
        Object.assign(win, {
          remaining: 0,
          remainingAt: o.receivedAt,
          seqRemaining: 0,
          uncertain: 0,
          seq: o.seq,
          sentAt: o.sentAt,
          receivedAt: o.receivedAt,
        });
      }
    }
    return this.probe.limited(o.sentAt, o.receivedAt, this.assumedMs);
  }

  /** The pause asked for lasts until `at`, the window's end: what we knew of it is done, and every start before `at` was in it. */
  private windowEndsBy(at: number): void {
    this.enterBlind();
    this.spentUntil = at;
    this.ours.windowEnded(at);
  }

  private enterBlind(): void {
    this.win = undefined;
    this.prior = undefined;
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
      let blind = Math.min(this.options.concurrency, share);
      // An earlier process's last window, perhaps still open: no more than the room it left, and
      // none of it when that process spent it (its share, or the server's room).
      if (this.prior && !this.prior.mayBeOpen(now)) this.prior = undefined;
      if (this.prior) {
        const room = Math.min(this.prior.remaining, share - this.prior.sent);
        // Spent: with the length known, its end is waited for. With the length only assumed, a
        // shorter window may be long over: one request looks (its 429, if the window is still
        // spent, dates its end, and the record's opening turns that into the length).
        if (room < 1 && this.length.knownMs !== undefined) return this.prior.end;
        blind = Math.min(blind, Math.max(1, room));
      }
      return this.ours.inFlightFrom(this.blindFrom) < blind ? now : Number.POSITIVE_INFINITY;
    }
    const at = startInWindow({
      now,
      win,
      end,
      share: share - (win.priorSent ?? 0),
      seq: this.ours.seq,
      lastStartAt: this.ours.lastStartAt,
      othersRatePerMs: this.others.rateAt(now),
      shared: this.others.sharing(now),
      reserve: this.reserve,
    });
    if (at !== 'spent') return at;
    // A window this process did not open, its length not known: someone else's (a probe's 429
    // would say when it ends but not how long windows are, when it opened being unknown, and the
    // next window would need a probe of its own), or an earlier run's (it ends by that run's
    // record, the documented length assumed). Its documented end is waited for instead: a probe
    // goes only in a window we opened, where its 429 teaches the length.
    if (this.length.knownMs === undefined && (!Number.isFinite(win.openLo) || win.priorSent !== undefined)) {
      return win.shareUntil;
    }
    // The server's room is spent and we do not know when it comes back: one probe, once every
    // answer is in, finds out.
    if (this.probe.out || this.ours.inFlightCount > 0) return Number.POSITIVE_INFINITY;
    this.probe.want();
    return now;
  }
}
