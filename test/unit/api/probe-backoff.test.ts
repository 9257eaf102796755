import { describe, expect, it } from 'vitest';
import { ProbeBackoff } from '../../../src/api/queue/rate-limit/probe-backoff.js';

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

  it('ends with the answer to the probe, or at once with an answer to a request sent no earlier than the refused one', () => {
    const backoff = new ProbeBackoff();
    backoff.limited(0, 50, 60_000);
    // Sent before the refused request: says nothing of it.
    expect(backoff.answered(-10, 60)).toBeUndefined();
    expect(backoff.engaged).toBe(true);
    // Sent with it and taken: the refusal was that request's alone; the pause (to 1 050) is cut.
    expect(backoff.answered(0, 70)).toBe(1_050);
    expect(backoff.engaged).toBe(false);
    // The probe after a pause: ends the backoff; its pause is over already, nothing to cut.
    backoff.limited(2_000, 2_050, 60_000);
    expect(backoff.answered(3_050, 3_100)).toBeUndefined();
    expect(backoff.engaged).toBe(false);
    expect(backoff.limited(4_000, 4_050, 60_000)).toEqual({ waitMs: 1_000, probe: false });
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
