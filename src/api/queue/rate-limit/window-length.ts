import { DOCUMENTED_WINDOW_MS, windowFromBounds } from './window-math.js';
import type { WindowSource } from './window-types.js';

/**
 * Widest bounds a window's length is adopted from: a Retry-After's end is known
 * to a second (two for an HTTP date), plus the round trips around it.
 */
const LEARNED_WIDTH_MS = 2_500;

/**
 * The server's window length: configured, or learned from what the server
 * shows (API document, Limits: "Each limiter's maximum and window are
 * configurable per deployment"). Every observation narrows the bounds the
 * length lies in; a length is adopted only once they pin it to about a second,
 * since a loose pair (sparse requests around a reset) would make every later
 * window wait far past its end. Until then, the documented 60 s is assumed.
 */
export class WindowLength {
  private learnedMs: number | undefined;
  /** What every observation so far says: the length lies in (lo, hi]. */
  private bounds = { lo: 0, hi: Number.POSITIVE_INFINITY };

  constructor(private readonly configuredMs: number | undefined) {}

  /** The length when configured or learned; undefined while only assumed. */
  get knownMs(): number | undefined {
    return this.configuredMs ?? this.learnedMs;
  }

  /** The length acted on: known, else the documented 60 s. */
  get ms(): number {
    return this.knownMs ?? DOCUMENTED_WINDOW_MS;
  }

  get source(): WindowSource {
    if (this.configuredMs !== undefined) return 'configured';
    return this.learnedMs === undefined ? 'assumed' : 'learned';
  }

  /** Whether observations may still change it (it is not configured). */
  get learning(): boolean {
    return this.configuredMs === undefined;
  }

  /**
   * A length an earlier process of this deployment learned: acted on as learned, until what this
   * process sees contradicts it (the bounds below replace it once they pin another length).
   */
  adopt(ms: number): void {
    if (this.learning && ms >= 1000) this.learnedMs = ms;
  }

  /** The length lies in (lo, hi]; bounds that contradict the earlier ones (the deployment changed) replace them. */
  learn(lo: number, hi: number): void {
    if (!this.learning || !(hi > 0)) return;
    let next = { lo: Math.max(this.bounds.lo, lo, 0), hi: Math.min(this.bounds.hi, hi) };
    if (next.lo >= next.hi) next = { lo: Math.max(0, lo), hi };
    this.bounds = next;
    if (next.hi - next.lo <= LEARNED_WIDTH_MS) this.learnedMs = windowFromBounds(next.lo, next.hi);
  }
}
