import type { Clock } from './clock.js';
import type { RateBudget } from './rate-budget.js';

/** Priority of a request at the gate: a retried request goes before new ones. */
export const GatePriority = { normal: 0, retry: 1 } as const;

interface Waiter {
  priority: number;
  order: number;
  resolve(seq: number): void;
  reject(reason: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

export interface PacingGateOptions {
  clock: Clock;
  /** Minimum milliseconds between two starts (see baseSpacingMs). */
  spacingMs: number;
  budget: RateBudget;
  /**
   * How late a start may be and still count as on schedule. Timers fire a few ms
   * late; measuring the next start from the late one would make every run slower
   * than the rate by that much per request. Keeping the schedule is safe while
   * the lateness stays under what the margin leaves spare in any second (see
   * RequestQueue). @default 0 (always measure from the actual start)
   */
  catchUpMs?: number;
}

/**
 * The one place where requests are let through, one at a time, at the paced
 * rate. Requests wait here *after* taking a concurrency slot, so a released
 * request starts at once and starts can never bunch up behind a busy slot.
 * A pause (429) holds every waiter; retried requests are released first.
 */
export class PacingGate {
  private readonly waiters: Waiter[] = [];
  private order = 0;
  private pumping = false;
  private lastStart: number | undefined;
  private pausedUntil = 0;
  private readonly closing = new AbortController();
  /** Wall-clock ms the gate held back a waiting request (pacing and pauses). */
  waitedMs = 0;
  /** Wall-clock ms of 429 pauses alone. */
  pausedMs = 0;

  constructor(private readonly options: PacingGateOptions) {}

  /** Resolves when the caller may start its request, with the request's sequence number. */
  acquire(priority: number, signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.closing.signal.aborted) return Promise.reject(this.closing.signal.reason);
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = { priority, order: this.order++, resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      const at = this.waiters.findIndex((w) => w.priority < priority);
      if (at < 0) this.waiters.push(waiter);
      else this.waiters.splice(at, 0, waiter);
      void this.pump();
    });
  }

  /** Holds every start until `until` (epoch ms); a shorter pause never cuts a longer one. */
  pauseUntil(until: number): void {
    const from = Math.max(this.options.clock.now(), this.pausedUntil);
    if (until > from) this.pausedMs += until - from;
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  /** Rejects every waiter and stops the timer, so nothing keeps the process alive. */
  close(reason: unknown): void {
    for (const waiter of this.waiters.splice(0)) {
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.reject(reason);
    }
    this.closing.abort(reason);
  }

  /** When the next start may happen, given everything known now. */
  nextStartAt(now: number): number {
    const paced = this.lastStart === undefined ? now : this.lastStart + this.options.spacingMs;
    return Math.max(paced, this.pausedUntil, this.options.budget.earliestNext(this.lastStart, now));
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    const { clock } = this.options;
    try {
      while (this.waiters.length > 0) {
        const now = clock.now();
        const at = this.nextStartAt(now);
        if (at > now) {
          await clock.sleep(at - now, this.closing.signal);
          this.waitedMs += Math.max(0, clock.now() - now);
          continue;
        }
        const waiter = this.waiters.shift() as Waiter;
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
        // On schedule (a late timer): keep it. Long after it (the queue was idle): restart from now.
        this.lastStart = this.lastStart !== undefined && now - at <= (this.options.catchUpMs ?? 0) ? at : now;
        waiter.resolve(this.options.budget.noteStart());
      }
    } catch {
      // closed while sleeping: close() already rejected every waiter
    } finally {
      this.pumping = false;
    }
  }
}
