import type { Clock } from '../../../src/clock.js';

interface Timer {
  at: number;
  order: number;
  resolve(): void;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A discrete-event clock: time moves only when a test fires timers, jumping
 * straight to the next one. Every sleep is recorded, so tests can assert exact
 * waits (e.g. a Retry-After obeyed to the millisecond) without the wall clock.
 */
export class FakeClock implements Clock {
  private t: number;
  private order = 0;
  private readonly timers: Timer[] = [];
  /** Every sleep asked for, in order (ms). */
  readonly sleeps: number[] = [];
  randomValue = 0.5;
  /** Extra ms every timer fires late by, as real timers do under load. */
  lateness = 0;

  constructor(start = Date.parse('2026-07-30T10:00:00Z')) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  random(): number {
    return this.randomValue;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.timers.indexOf(timer);
        if (i >= 0) this.timers.splice(i, 1);
        reject(signal?.reason);
      };
      const timer: Timer = {
        at: this.t + ms + this.lateness,
        order: this.order++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.timers.push(timer);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time to the earliest timer and fires it; false when there is none. */
  fireNext(): boolean {
    if (this.timers.length === 0) return false;
    this.timers.sort((a, b) => a.at - b.at || a.order - b.order);
    const timer = this.timers.shift() as Timer;
    this.t = Math.max(this.t, timer.at);
    timer.resolve();
    return true;
  }

  /** Lets pending promise chains and I/O callbacks run. */
  async settle(turns = 5): Promise<void> {
    for (let i = 0; i < turns; i++) await turn();
  }

  /** Fires timers in time order until `done()` holds or no timer is left. */
  async run(done: () => boolean = () => false, maxSteps = 1_000_000): Promise<void> {
    await this.settle();
    for (let step = 0; step < maxSteps && !done(); step++) {
      if (!this.fireNext()) break;
      await this.settle();
    }
  }

  /**
   * For tests with real I/O (nock): fires the next timer whenever the process
   * has nothing else to do for a few turns. Returns a stop function.
   */
  autoAdvance(): () => void {
    let stopped = false;
    const loop = async () => {
      while (!stopped) {
        await this.settle(3);
        if (!this.fireNext()) await new Promise((resolve) => setTimeout(resolve, 1));
      }
    };
    void loop();
    return () => {
      stopped = true;
    };
  }
}
