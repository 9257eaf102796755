import type { RequestStats } from '../endpoints/types.js';

/**
 * The requests made since `baseline` was read from the same queue. The daemon
 * shares one queue (one rate budget) across all its runs, so its counters are
 * cumulative; a run's summary reports only its own share, read as this delta.
 */
export function requestStatsSince(baseline: RequestStats, current: RequestStats): RequestStats {
  const byStatus: Record<string, number> = {};
  for (const [status, count] of Object.entries(current.byStatus)) {
    const delta = count - (baseline.byStatus[status] ?? 0);
    if (delta > 0) byStatus[status] = delta;
  }
  const delta: RequestStats = {
    requests: current.requests - baseline.requests,
    byStatus,
    retries: current.retries - baseline.retries,
    rateLimited: current.rateLimited - baseline.rateLimited,
    waitedMs: current.waitedMs - baseline.waitedMs,
  };
  // A pause going on now is a state, not a count: it is the current one whatever the baseline.
  if (current.rateLimitPauseLeftMs !== undefined) delta.rateLimitPauseLeftMs = current.rateLimitPauseLeftMs;
  if (current.rateLimitedForMs !== undefined) delta.rateLimitedForMs = current.rateLimitedForMs;
  if (current.rateLimitPausedMs !== undefined) {
    delta.rateLimitPausedMs = current.rateLimitPausedMs - (baseline.rateLimitPausedMs ?? 0);
  }
  if (current.rateLimitProbes !== undefined) {
    delta.rateLimitProbes = current.rateLimitProbes - (baseline.rateLimitProbes ?? 0);
  }
  if (current.rateLimitLearning !== undefined) {
    delta.rateLimitLearning = current.rateLimitLearning - (baseline.rateLimitLearning ?? 0);
  }
  return delta;
}
