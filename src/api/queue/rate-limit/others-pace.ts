/**
 * A look at whether others still send lasts this share of the window: long
 * enough to count more than `concurrency` requests of a client that spends a
 * tenth of 300 per 60 s, or half of 100 per 10 s; short enough that the window's
 * budget is still spent before its end.
 */
const LOOK_FRACTION = 1 / 5;

/**
 * The other clients on our IP (the limit is "keyed by client IP, not by
 * token", API document, Limits): their pace, and whether they are seen now.
 *
 * Between two of our replies in one window, X-RateLimit-Remaining drops by our
 * requests plus theirs, and the difference is theirs: a moving average over
 * about one window gives their pace. They are *seen* once more of theirs than
 * our reordering could explain (`concurrency`) are counted in one window, and
 * stay seen for two windows. Requests already counted when we first look at a
 * window say only that someone sent before us (an earlier run, a `check`): a
 * short look follows, long enough to count them if they still send; only if
 * they do are they seen.
 */
export class OthersPace {
  private othersSum = 0;
  private timeSum: number;
  /**
   * When others were last seen, and when a look for them began. How long each
   * lasts is read from the window when asked, not when they were seen: a window
   * learned since (2 s where 60 s was assumed) must not keep us sharing for two
   * assumed windows, a minute of spreading for nobody.
   */
  private seenAt = Number.NEGATIVE_INFINITY;
  private lookAt = Number.NEGATIVE_INFINITY;
  /** When a sample last counted any request of theirs. */
  private sentAt = Number.NEGATIVE_INFINITY;
  /** Others counted in the current window, summed between our replies. */
  private inWindow = 0;

  /**
   * @param windowMs the window the average spans, read on every update (it may be learned later)
   * @param concurrency how far our own replies reorder: more of theirs than this in a window is no noise
   */
  constructor(
    private readonly windowMs: () => number,
    private readonly concurrency: number,
  ) {
    // Prior: a tenth of a window in which the others sent nothing, so one noisy pair cannot stall us.
    this.timeSum = windowMs() / 10;
  }

  /** `others` requests of theirs were counted over `dt` ms up to `at` (negative counts: reordering, they even out). */
  learn(others: number, dt: number, at: number): void {
    if (others > 0) this.sentAt = Math.max(this.sentAt, at);
    this.inWindow += others;
    if (this.inWindow > this.concurrency) this.seenAt = Math.max(this.seenAt, at);
    if (dt <= 0) {
      this.othersSum += others;
      return;
    }
    const decay = Math.exp(-dt / this.windowMs());
    this.othersSum = this.othersSum * decay + others;
    this.timeSum = this.timeSum * decay + dt;
  }

  /** A new window: counting starts again. */
  newWindow(): void {
    this.inWindow = 0;
  }

  /** Requests of others were already counted in the window we first saw at `at`: look whether they still send. */
  sentBefore(at: number): void {
    this.lookAt = Math.max(this.lookAt, at);
  }

  /**
   * Whether others are seen (for two windows after they last were) or looked for
   * (a fifth of a window) at `now`: then we spread our starts and keep the reserve.
   */
  sharing(now: number): boolean {
    const windowMs = this.windowMs();
    return now < this.seenAt + 2 * windowMs || now < this.lookAt + LOOK_FRACTION * windowMs;
  }

  /** Their pace in requests per ms, as measured when they last sent. */
  get ratePerMs(): number {
    return Math.max(0, this.othersSum / this.timeSum);
  }

  /**
   * Their pace as expected at `now`: the measured one, fading by a factor e per
   * fifth of a window since they were last counted (the look's length: a client
   * still sending is counted within it). The average moves only when our replies
   * sample it, and while that pace says the window is theirs we send little to
   * sample it with: without the fade, a client that stopped (a naive peer done
   * with its sync) would hold us to a few requests a window long after it left.
   */
  rateAt(now: number): number {
    const silentMs = Math.max(0, now - this.sentAt);
    return this.ratePerMs * Math.exp(-silentMs / (LOOK_FRACTION * this.windowMs()));
  }
}
