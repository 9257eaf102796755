import { describe, expect, it } from 'vitest';
import { type AccountRun, jobOutcome } from '../../../src/daemon/job-result.js';

const runs = (...outcomes: AccountRun['outcome'][]) => outcomes.map((outcome, i) => ({ account: `a${i}`, outcome }));

describe('jobOutcome', () => {
  it.each([
    [['succeeded'], 'succeeded'],
    [['failed'], 'failed'],
    [['partial'], 'partial'],
    [['interrupted'], 'interrupted'],
    [['succeeded', 'succeeded'], 'succeeded'],
    // Some account failed or ended partial while another committed: partial, not failed.
    [['succeeded', 'failed'], 'partial'],
    [['succeeded', 'partial'], 'partial'],
    [['interrupted', 'failed'], 'partial'],
    [['succeeded', 'interrupted'], 'interrupted'],
    // Every account failed: the job failed (what /healthz counts).
    [['failed', 'failed'], 'failed'],
    [[], 'succeeded'],
  ] as const)('%j → %s', (outcomes, expected) => {
    expect(jobOutcome(runs(...outcomes))).toBe(expected);
  });
});
