import { type Clock, systemClock } from '../clock.js';
import type { Logger } from '../log.js';
import type { SyncProgress } from '../sync/sync-types.js';
import type { DaemonOptions } from './daemon.js';
import { createDaemonMetrics, type QueueCounters } from './daemon-metrics.js';
import { jobOutcome } from './job-result.js';
import { type HealthStatus, startMetricsServer } from './metrics-server.js';
import type { StatusSource } from './status-source.js';

export interface DaemonMonitorOptions {
  /** `metrics.listen`; no listener when absent (the metrics are still kept). */
  listen?: string;
  unhealthyAfterFailures: number;
  /** The request queues' counters, read when /metrics is scraped. */
  queues: () => readonly QueueCounters[];
  logger: Logger;
  /** When a run is recorded as finished. @default systemClock */
  clock?: Pick<Clock, 'now'>;
  /** The status page at `/`: told of progress and finished runs. Absent: no page. */
  status?: StatusSource;
}

export interface DaemonMonitor {
  onRunFinished: NonNullable<DaemonOptions['onRunFinished']>;
  /** A running sync's progress (of `account`, with several): the backfill gauges and the page's "running now". */
  onProgress(progress: SyncProgress, account?: string): void;
  /** From now on /healthz answers 503: the scheduler is stopping. */
  stopping(): void;
  close(): Promise<void>;
}

/**
 * Health and metrics of the daemon: turns each finished job into metrics (one
 * run per account) and decides /healthz — healthy while the scheduler runs and
 * fewer than `unhealthyAfterFailures` jobs have failed in a row. A job over
 * several accounts fails when every account failed; one where some account
 * failed or ended partial while another committed is partial, and keeps the
 * daemon healthy (its failed accounts are on the metrics, by name).
 */
export async function startDaemonMonitor(options: DaemonMonitorOptions): Promise<DaemonMonitor> {
  const clock = options.clock ?? systemClock;
  const metrics = createDaemonMetrics(options.queues, () => options.status?.warehouse() ?? []);
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
    onProgress: (progress, account) => {
      metrics.recordProgress(progress, account);
      options.status?.progress(progress, account);
    },
    onRunFinished(run) {
      const finishedAt = new Date(clock.now());
      // A job that threw is one failed run of the job as a whole; else each account's part is a run.
      const runs = run.ok ? run.result.runs : [];
      options.status?.progress(undefined);
      if (run.job === 'sync') options.status?.finished(runs);
      void options.status?.refresh();
      if (!run.ok) {
        metrics.recordRun({ job: run.job, outcome: 'failed', durationMs: run.durationMs, finishedAt });
        metrics.recordJob('failed');
        return;
      }
      for (const r of runs) {
        metrics.recordRun({
          job: run.job,
          account: r.account,
          outcome: r.outcome,
          durationMs: r.durationMs ?? run.durationMs,
          finishedAt,
          summary: r.summary,
        });
      }
      metrics.recordJob(jobOutcome(runs));
    },
    stopping() {
      stopping = true;
    },
    close: async () => server?.close(),
  };
}
