import { describe, expect, it } from 'vitest';
import { StartGate } from '../../../src/api/queue/rate-limit/start-gate.js';
import { WindowBudget } from '../../../src/api/queue/rate-limit/window-budget.js';
import type { Clock } from '../../../src/clock.js';
import { FakeClock } from './fake-clock.js';

/** A clock that moves on by 1 ms at every read, as the wall clock may between two reads. */
function tickingClock(): Clock {
  let t = Date.parse('2026-07-30T10:00:00Z');
  return { now: () => t++, sleep: async () => undefined, random: () => 0 };
}

describe('StartGate.pauseFor', () => {
  it('counts a 429 pause exactly as long as it was asked for, and an overlapping shorter one not at all', () => {
    const clock = tickingClock();
    const gate = new StartGate({ clock, budget: new WindowBudget({ requestsPerMinute: 300, concurrency: 4 }) });
    gate.pauseFor(1_000);
    expect(gate.pausedMs).toBe(1_000);
    gate.pauseFor(200);
    expect(gate.pausedMs).toBe(1_000);
    const now = clock.now();
    expect(gate.nextStartAt(now)).toBeGreaterThan(now);
    gate.close(new Error('done'));
  });
});

describe('StartGate while a 429 pause lasts', () => {
  it('counts the wait going on now and says how long the pause has left, not only once it ended', async () => {
    const clock = new FakeClock();
    const gate = new StartGate({ clock, budget: new WindowBudget({ requestsPerMinute: 300, concurrency: 4 }) });
    const start = clock.now();
    gate.pauseFor(50_000);
    const started = gate.acquire(0);
    await clock.settle();
    // The pause's end is due; the gate has not looked again yet, so the wait is still going on:
    // read at a moment mid-pause, as a progress timer would.
    clock.fireNext();
    expect(clock.now()).toBe(start + 50_000);
    expect(gate.waitedMsAt(start + 30_000)).toBe(30_000);
    expect(gate.pauseLeftMs(start + 30_000)).toBe(20_000);
    await started;
    expect(gate.waitedMsAt(clock.now())).toBe(50_000);
    expect(gate.pauseLeftMs(clock.now())).toBe(0);
    gate.close(new Error('done'));
  });
});
