/** The sandbox's own movable clock: tests and `POST /_sandbox/clock` move it; time also flows on its own. */
export interface SandboxClock {
  now(): Date;
  /** Moves the clock forward (or back, with a negative value) by `ms`. */
  advance(ms: number): void;
  /** Jumps the clock to `d`; it keeps flowing from there. */
  set(d: Date): void;
  /** Called after every advance/set (the store purges the trash then). */
  onChange(listener: () => void): void;
}

/** A clock that reads `base()` (the wall clock by default) plus an offset that advance/set move. */
export function createClock(base: () => Date = () => new Date()): SandboxClock {
  let offset = 0;
  const listeners: Array<() => void> = [];
  const changed = () => {
    for (const listener of listeners) listener();
  };
  return {
    now: () => new Date(base().getTime() + offset),
    advance(ms) {
      if (!Number.isFinite(ms)) throw new RangeError(`Expected a finite number of milliseconds, got ${ms}`);
      offset += ms;
      changed();
    },
    set(d) {
      if (Number.isNaN(d.getTime())) throw new RangeError('Expected a valid date');
      offset = d.getTime() - base().getTime();
      changed();
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}
