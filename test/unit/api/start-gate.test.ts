import { describe, expect, it } from 'vitest';
import { StartGate } from '../../../src/api/rate-limit/start-gate.js';
import { WindowBudget } from '../../../src/api/rate-limit/window-budget.js';
import type { Clock } from '../../../src/clock.js';

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
