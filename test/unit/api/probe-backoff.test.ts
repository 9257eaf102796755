import { describe, expect, it } from 'vitest';
import { ProbeBackoff } from '../../../src/api/rate-limit/probe-backoff.js';

describe('ProbeBackoff', () => {
  it('pauses 1 s, then doubles for each probe refused, up to the cap; requests already out join the pause', () => {
    const backoff = new ProbeBackoff();
    expect(backoff.limited(0, 50, 10_000)).toEqual({ waitMs: 1_000, probe: false });
    // Sent before the pause began: it waits with it, and costs no escalation.
    expect(backoff.limited(0, 60, 10_000)).toEqual({ waitMs: 990, probe: false });
    expect(backoff.limited(1_050, 1_100, 10_000)).toEqual({ waitMs: 2_000, probe: true });
    expect(backoff.limited(3_100, 3_150, 10_000)).toEqual({ waitMs: 4_000, probe: true });
    expect(backoff.limited(7_150, 7_200, 10_000)).toEqual({ waitMs: 8_000, probe: true });
    expect(backoff.limited(15_200, 15_250, 10_000)).toEqual({ waitMs: 10_000, probe: true });
    expect(backoff.engaged).toBe(true);
  });

  it('ends with an answer to a request sent after the pause began, not with one sent before', () => {
    const backoff = new ProbeBackoff();
    backoff.limited(0, 50, 60_000);
    backoff.answered(10);
    expect(backoff.engaged).toBe(true);
    backoff.answered(1_050);
    expect(backoff.engaged).toBe(false);
    expect(backoff.limited(2_000, 2_050, 60_000)).toEqual({ waitMs: 1_000, probe: false });
  });

  it('marks the next request started as the probe, out until it settles', () => {
    const backoff = new ProbeBackoff();
    backoff.started(1);
    expect(backoff.out).toBe(false);
    backoff.want();
    backoff.started(2);
    expect(backoff.out).toBe(true);
    backoff.settled(1);
    expect(backoff.out).toBe(true);
    backoff.settled(2);
    expect(backoff.out).toBe(false);
  });
});
