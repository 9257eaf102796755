import { describe, expect, it } from 'vitest';
import type { RequestStats } from '../../../src/api/endpoints/types.js';
import { requestStatsSince } from '../../../src/api/queue/request-stats-since.js';

describe('requestStatsSince', () => {
  it('reports only what the queue counted after the baseline', () => {
    const baseline: RequestStats = {
      requests: 353,
      byStatus: { '200': 350, '429': 3 },
      retries: 3,
      rateLimited: 3,
      rateLimitProbes: 1,
      waitedMs: 12_000,
      rateLimitPausedMs: 4_000,
    };
    const current: RequestStats = {
      requests: 376,
      byStatus: { '200': 371, '429': 4, '503': 1 },
      retries: 5,
      rateLimited: 4,
      rateLimitProbes: 2,
      waitedMs: 13_500,
      rateLimitPausedMs: 4_200,
    };
    expect(requestStatsSince(baseline, current)).toEqual({
      requests: 23,
      byStatus: { '200': 21, '429': 1, '503': 1 },
      retries: 2,
      rateLimited: 1,
      rateLimitProbes: 1,
      waitedMs: 1_500,
      rateLimitPausedMs: 200,
    });
  });

  it('is the whole count from a fresh queue, and drops statuses that did not recur', () => {
    const zero: RequestStats = { requests: 0, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 };
    const once: RequestStats = { requests: 2, byStatus: { '200': 2 }, retries: 0, rateLimited: 0, waitedMs: 7 };
    expect(requestStatsSince(zero, once)).toEqual(once);
    expect(requestStatsSince(once, { ...once, byStatus: { '200': 2 } })).toEqual({
      requests: 0,
      byStatus: {},
      retries: 0,
      rateLimited: 0,
      waitedMs: 0,
    });
  });
});
