import type { Clock } from '../../../clock.js';
import { linkedSignal } from '../linked-signal.js';
import type { WindowBudget } from './window-budget.js';

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

export interface StartGateOptions {
  clock: Clock;
  budget: WindowBudget;
}

/**
 * The one place where requests are let through, one at a time, when the
 * WindowBudget has room. Requests wait here *after* taking a concurrency slot,
 * so a released request starts at once. A pause (429) holds every waiter;
 * retried requests are released first. When the budget waits for a response
 * rather than a time, `wake()` (called on every response) looks again.
 */
export class StartGate {
  private readonly waiters: Waiter[] = [];
  private order = 0;
  private pumping = false;
  private pausedUntil = 0;
  private readonly closing = new AbortController();
  private waking: AbortController | undefined;
  /** Wall-clock ms the gate held back a waiting request (budget and pauses). */
  waitedMs = 0;
  /** Wall-clock ms of 429 pauses alone. */
  pausedMs = 0;
  /** When the wait going on now began; undefined while nothing waits. */
  private waitStartedAt: number | undefined;

  constructor(private readonly options: StartGateOptions) {}

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

  /**
   * Holds every start for `ms` from now; a shorter pause never cuts a longer one.
   * The clock is read once, so a pause is counted in `pausedMs` exactly as long
   * as it was asked for (overlapping pauses count once).
   */
  pauseFor(ms: number): void {
    const now = this.options.clock.now();
    const until = now + ms;
    const from = Math.max(now, this.pausedUntil);
    if (until > from) this.pausedMs += until - from;
    this.pausedUntil = Math.max(this.pausedUntil, until);
    this.wake();
  }

  /**
   * Ends now a pause that would have ended at `end` (a longer one asked for since
   * is kept); the part not waited is not counted in `pausedMs`.
   */
  cutPause(end: number): void {
    const now = this.options.clock.now();
    if (this.pausedUntil > end || this.pausedUntil <= now) return;
    this.pausedMs -= this.pausedUntil - now;
    this.pausedUntil = now;
    this.wake();
  }

  /** Something the budget depends on changed (a response came in): look again now. */
  wake(): void {
    this.waking?.abort();
  }

  /** Rejects every waiter and stops the timer, so nothing keeps the process alive. */
  close(reason: unknown): void {
    for (const waiter of this.waiters.splice(0)) {
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.reject(reason);
    }
    this.closing.abort(reason);
  }

  /** Milliseconds held back so far, the wait going on now included (progress reads it mid-wait). */
  waitedMsAt(now: number): number {
    return this.waitedMs + (this.waitStartedAt === undefined ? 0 : Math.max(0, now - this.waitStartedAt));
  }

  /** Milliseconds until a 429 pause going on now ends; 0 when none is. */
  pauseLeftMs(now: number): number {
    return Math.max(0, this.pausedUntil - now);
  }

  /** When the next start may happen, given everything known now (+Infinity: after a response). */
  nextStartAt(now: number): number {
    return Math.max(this.pausedUntil, this.options.budget.nextStartAt(now));
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    const { clock, budget } = this.options;
    try {
      while (this.waiters.length > 0 && !this.closing.signal.aborted) {
        const now = clock.now();
        const at = this.nextStartAt(now);
        if (at > now) {
          this.waitStartedAt = now;
          await this.waitUntil(at - now);
          this.waitStartedAt = undefined;
          this.waitedMs += Math.max(0, clock.now() - now);
          continue;
        }
        const waiter = this.waiters.shift() as Waiter;
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
        waiter.resolve(budget.noteStart(now));
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Sleeps `ms` (forever when infinite) or until woken or closed; never throws. */
  private async waitUntil(ms: number): Promise<void> {
    const waking = new AbortController();
    this.waking = waking;
    // Not AbortSignal.any: see linked-signal.ts (one wait per paced request would leak on Node 20).
    const { signal, unlink } = linkedSignal(waking.signal, this.closing.signal);
    try {
      if (Number.isFinite(ms)) await this.options.clock.sleep(ms, signal);
      else await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    } catch {
      // woken or closed: the loop looks again
    } finally {
      unlink();
      if (this.waking === waking) this.waking = undefined;
    }
  }
}
