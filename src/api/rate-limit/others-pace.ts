/**
 * The pace of the other clients on our IP (the limit is "keyed by client IP,
 * not by token", API document, Limits): between two of our replies in one
 * window, X-RateLimit-Remaining drops by our requests plus theirs, and the
 * difference is theirs. A moving average over about one window.
 */
export class OthersPace {
  private othersSum = 0;
  private timeSum: number;

  /** @param windowMs the window the average spans, read on every update (it may be learned later) */
  constructor(private readonly windowMs: () => number) {
    // Prior: a tenth of a window in which the others sent nothing, so one noisy pair cannot stall us.
    this.timeSum = windowMs() / 10;
  }

  /** `others` requests of theirs were counted over `dt` ms (negative counts: reordering, they even out). */
  learn(others: number, dt: number): void {
    if (dt <= 0) {
      this.othersSum += others;
      return;
    }
    const decay = Math.exp(-dt / this.windowMs());
    this.othersSum = this.othersSum * decay + others;
    this.timeSum = this.timeSum * decay + dt;
  }

  /** Their pace in requests per ms. */
  get ratePerMs(): number {
    return Math.max(0, this.othersSum / this.timeSum);
  }
}
