import { createDaemonMetrics } from '../../../src/daemon/daemon-metrics.js';
import { completenessFigure } from '../../../src/streams/completeness.js';
import type { SyncSummary } from '../../../src/sync/sync-types.js';

/**
 * The daemon's metrics after a run that wrote conversations, measured them
 * (`unexplained` missing) and ran a backfill, then a partial run in which the
 * streams named in `failed` failed.
 */
export async function daemonMetrics(unexplained: number, failed: readonly string[] = ['holidays']) {
  const metrics = createDaemonMetrics(() => ({
    requests: 3,
    byStatus: { '200': 2, '429': 1 },
    retries: 1,
    rateLimited: 1,
    waitedMs: 500,
  }));
  const summary = {
    tables: { conversations: { rows: 3, tombstones: 1, rejected: 0 } },
    completeness: [completenessFigure('conversations', 100, 100 - unexplained), completenessFigure('inboxes', 2, 2)],
    backfill: { status: 'running', done: 10, total: 100, eta_ms: 1000 },
    status: 'succeeded',
    streams: ['conversations', 'inboxes', 'holidays'],
    failed_streams: [],
  } as unknown as SyncSummary;
  metrics.recordRun({ job: 'sync', outcome: 'succeeded', durationMs: 1, finishedAt: new Date(), summary });
  const partial = {
    ...summary,
    status: 'partial',
    completeness: summary.completeness.filter((f) => !failed.includes(f.stream)),
    failed_streams: failed.map((stream) => ({ stream, code: 'API_REDIRECT', message: 'refused' })),
  } as unknown as SyncSummary;
  metrics.recordRun({ job: 'sync', outcome: 'partial', durationMs: 1, finishedAt: new Date(), summary: partial });
  return metrics.registry.getMetricsAsJSON();
}

/**
 * Every series name the daemon serves, with its labels: a histogram's `_bucket`,
 * `_sum` and `_count` series included (`le` on the buckets).
 */
export async function servedMetrics(): Promise<Map<string, Set<string>>> {
  const names = new Map<string, Set<string>>();
  for (const m of await daemonMetrics(0)) {
    const labels = new Set(m.values.flatMap((v) => Object.keys(v.labels)));
    names.set(m.name, labels);
    if (String(m.type) === 'histogram') {
      names.set(`${m.name}_bucket`, new Set([...labels, 'le']));
      names.set(`${m.name}_sum`, labels);
      names.set(`${m.name}_count`, labels);
    }
  }
  return names;
}
