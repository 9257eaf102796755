/** Outcome of one request passing the limiter; the headers every /v1 response carries come from it. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window ends (ceil, at least 1); meaningful when not allowed. */
  retryAfterSeconds: number;
}

/**
 * Fixed window per client IP, Laravel style: the window opens at an IP's first
 * request and lasts `windowMs`; up to `limit` requests pass in it (API
 * document, Limits: api.global, 300 per minute, keyed by client IP, not token).
 * Time comes from the sandbox clock, so tests move past a window without waiting.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number,
  ) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`Expected limit to be an integer from 1 up, got ${limit}`);
    if (!(windowMs > 0)) throw new RangeError(`Expected windowMs to be above 0, got ${windowMs}`);
  }

  hit(key: string): RateDecision {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now >= window.start + this.windowMs || now < window.start) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
    if (window.count >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, retryAfterSeconds };
    window.count += 1;
    return { allowed: true, limit: this.limit, remaining: this.limit - window.count, retryAfterSeconds };
  }

  reset(): void {
    this.windows.clear();
  }
}
