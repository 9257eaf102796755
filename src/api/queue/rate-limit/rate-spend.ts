/** Where a window length came from: the config, a 429 the queue learned it from, or the API document's minute. */
export type WindowSource = 'configured' | 'learned' | 'assumed';

/**
 * What a process spent of the server's rate window, as it knew it when it recorded it: the
 * next process of the deployment starts from it instead of from a full budget (the limiter
 * is keyed by client IP, API document, Limits: a run started a few seconds after another
 * finds the window that run spent). Times are the queue's clock (epoch ms). The caller keeps
 * it (the sync's state) and hands it to the next queue: the queue never reads or writes it.
 */
export interface RateSpend {
  /** The window length the process acted on, and where it came from. */
  windowMs: number;
  windowSource: WindowSource;
  /** When its last request started. */
  lastStartAt: number;
  /** The last window it saw, when it saw one. */
  window?: {
    /** When the server opened it: after `openedAfter` (absent: not known), by `openedBy`. */
    openedAfter?: number;
    openedBy: number;
    /** The server's room left in it at most: the lowest X-RateLimit-Remaining less our starts since. */
    remaining: number;
    /** Our requests started in it (against our share). */
    sent: number;
  };
}

/**
 * The last window an earlier process saw, while it may still be the server's current one: a
 * fixed window opened by `openedBy` ends by `openedBy + length`, and before `openedAfter +
 * length` it is certainly still open.
 */
export class PriorWindow {
  constructor(
    private readonly w: NonNullable<RateSpend['window']>,
    private readonly lengthMs: () => number,
  ) {}

  /** Whether it may still be open at `at` (then what it spent is taken as spent). */
  mayBeOpen(at: number): boolean {
    return at < this.w.openedBy + this.lengthMs();
  }

  /** Whether a request the server counted by `at` was certainly counted in it. */
  surelyOpen(at: number): boolean {
    return this.w.openedAfter !== undefined && at < this.w.openedAfter + this.lengthMs();
  }

  /** Its latest end. */
  get end(): number {
    return this.w.openedBy + this.lengthMs();
  }

  get openedAfter(): number {
    return this.w.openedAfter ?? Number.NEGATIVE_INFINITY;
  }

  get openedBy(): number {
    return this.w.openedBy;
  }

  get remaining(): number {
    return this.w.remaining;
  }

  get sent(): number {
    return this.w.sent;
  }
}
