import { createDaemonMetrics } from '../../../src/daemon/daemon-metrics.js';
import type { TargetStatus } from '../../../src/report/warehouse-status.js';
import type { LoadRecord } from '../../../src/state/load-records.js';
import { completenessFigure } from '../../../src/streams/completeness.js';
import type { SyncSummary } from '../../../src/sync/sync-types.js';

const stats = { requests: 3, byStatus: { '200': 2, '429': 1 }, retries: 1, rateLimited: 1, waitedMs: 500 };

/**
 * A load target as the status page reads it: its last load ended with `outcome`, and the newest
 * manifest it loaded is `lagSeconds` older than the newest the state committed.
 */
export function loadTarget(outcome: LoadRecord['outcome'], lagSeconds: number): TargetStatus {
  const committed = Date.parse('2026-01-02T12:00:00Z');
  const at = (ms: number) => new Date(ms).toISOString();
  return {
    target: 'duckdb:/data/helpdesk.duckdb',
    last: {
      target: 'duckdb:/data/helpdesk.duckdb',
      listed_at: at(committed),
      finished_at: at(committed),
      outcome,
      manifests_loaded: 1,
      rows: 10,
      waiting: [],
    },
    lag: {
      manifests: lagSeconds > 0 ? 2 : 0,
      newest_committed: { run_id: 'r2', finished_at: at(committed) },
      newest_loaded: { run_id: 'r1', finished_at: at(committed - lagSeconds * 1000) },
    },
  };
}

/**
 * The daemon's metrics after a run that wrote conversations, measured them
 * (`unexplained` missing) and ran a backfill, then a partial run in which the
 * streams named in `failed` failed. `accounts`: the runs are those of the
 * accounts of a config that lists them, each the same (series labelled
 * `account`, request counters by `origin`); absent: a config without
 * `accounts:`. Each account's load target's last load failed, three hours behind.
 */
export async function daemonMetrics(
  unexplained: number,
  failed: readonly string[] = ['holidays'],
  accounts?: string[],
) {
  const metrics = createDaemonMetrics(
    () =>
      accounts
        ? [
            { labels: { origin: 'https://a.example.com' }, stats },
            { labels: { origin: 'https://b.example.com', local_address: '10.0.0.2' }, stats },
          ]
        : [{ labels: {}, stats }],
    () => (accounts ?? [undefined]).map((account) => ({ account, targets: [loadTarget('failed', 3 * 3600)] })),
  );
  const summary = {
    tables: { conversations: { rows: 3, tombstones: 1, rejected: 0 } },
    completeness: [completenessFigure('conversations', 100, 100 - unexplained), completenessFigure('inboxes', 2, 2)],
    backfill: { status: 'running', done: 10, total: 100, eta_ms: 1000 },
    status: 'succeeded',
    streams: ['conversations', 'inboxes', 'holidays'],
    failed_streams: [],
  } as unknown as SyncSummary;
  const partial = {
    ...summary,
    status: 'partial',
    completeness: summary.completeness.filter((f) => !failed.includes(f.stream)),
    failed_streams: failed.map((stream) => ({ stream, code: 'API_REDIRECT', message: 'refused' })),
  } as unknown as SyncSummary;
  for (const account of accounts ?? [undefined]) {
    const run = { job: 'sync', account, durationMs: 1, finishedAt: new Date() };
    metrics.recordRun({ ...run, outcome: 'succeeded', summary });
    metrics.recordRun({ ...run, outcome: 'partial', summary: partial });
    metrics.recordRun({ ...run, job: 'push', outcome: 'succeeded' });
  }
  metrics.recordJob('partial');
  return metrics.registry.getMetricsAsJSON();
}

/**
 * Every series name the daemon serves, with the labels it carries for a config of
 * one account or of several: a histogram's `_bucket`, `_sum` and `_count` series
 * included (`le` on the buckets).
 */
export async function servedMetrics(): Promise<Map<string, Set<string>>> {
  const names = new Map<string, Set<string>>();
  const add = (name: string, labels: Iterable<string>) => {
    names.set(name, new Set([...(names.get(name) ?? []), ...labels]));
  };
  for (const m of [...(await daemonMetrics(0)), ...(await daemonMetrics(0, ['holidays'], ['acme', 'globex']))]) {
    const labels = new Set(m.values.flatMap((v) => Object.keys(v.labels)));
    add(m.name, labels);
    if (String(m.type) === 'histogram') {
      add(`${m.name}_bucket`, [...labels, 'le']);
      add(`${m.name}_sum`, labels);
      add(`${m.name}_count`, labels);
    }
  }
  return names;
}
