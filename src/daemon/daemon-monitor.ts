import type { RequestStats } from '../api/index.js';
import { type Clock, systemClock } from '../clock.js';
import type { Logger } from '../log.js';
import type { SyncJobResult } from '../sync/sync-job.js';
import type { SyncProgress } from '../sync/sync-types.js';
import type { DaemonOptions } from './daemon.js';
import { createDaemonMetrics, type RunOutcome } from './daemon-metrics.js';
import { type HealthStatus, startMetricsServer } from './metrics-server.js';
import type { StatusSource } from './status-source.js';

export interface DaemonMonitorOptions {
  /** `metrics.listen`; no listener when absent (the metrics are still kept). */
  listen?: string;
  unhealthyAfterFailures: number;
  requestStats: () => RequestStats;
  logger: Logger;
  /** When a run is recorded as finished. @default systemClock */
  clock?: Pick<Clock, 'now'>;
  /** The status page at `/`: told of progress and finished runs. Absent: no page. */
  status?: StatusSource;
}

export interface DaemonMonitor {
  onRunFinished: NonNullable<DaemonOptions['onRunFinished']>;
  /** A running sync's progress (the backfill gauges). */
  onProgress(progress: SyncProgress): void;
  /** From now on /healthz answers 503: the scheduler is stopping. */
  stopping(): void;
  close(): Promise<void>;
}

/**
 * Health and metrics of the daemon: turns each finished run into metrics and
 * decides /healthz — healthy while the scheduler runs and fewer than
 * `unhealthyAfterFailures` runs have failed in a row.
 */
export async function startDaemonMonitor(options: DaemonMonitorOptions): Promise<DaemonMonitor> {
  const clock = options.clock ?? systemClock;
  const metrics = createDaemonMetrics(options.requestStats);
  let stopping = false;
  const health = (): HealthStatus => {
    if (stopping) return { healthy: false, reason: 'stopping' };
    const failures = metrics.consecutiveFailures();
    if (failures >= options.unhealthyAfterFailures) {
      return { healthy: false, reason: `${failures} runs failed in a row` };
    }
    return { healthy: true, reason: 'ok' };
  };
  const server = options.listen
    ? await startMetricsServer({
        listen: options.listen,
        registry: metrics.registry,
        health,
        ...(options.status ? { statusPage: options.status.render } : {}),
      })
    : undefined;
  if (server) {
    options.logger.info(
      { event: 'daemon.metrics_listening', address: server.address },
      `serving ${options.status ? 'the status page at /, ' : ''}/healthz and /metrics on ${server.address}`,
    );
  }
  return {
    onProgress: (progress) => {
      metrics.recordProgress(progress);
      options.status?.progress(progress);
    },
    onRunFinished(run) {
      options.status?.progress(undefined);
      void options.status?.refresh();
      const summary = run.ok && run.job === 'sync' ? (run.result as SyncJobResult | undefined)?.summary : undefined;
      const outcome: RunOutcome = !run.ok ? 'failed' : (summary?.status ?? 'succeeded');
      metrics.recordRun({
        job: run.job,
        outcome,
        durationMs: run.durationMs,
        finishedAt: new Date(clock.now()),
        summary,
      });
    },
    stopping() {
      stopping = true;
    },
    close: async () => server?.close(),
  };
}
