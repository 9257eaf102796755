import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { SyncProgress, SyncSummary } from '../sync/sync-types.js';
import type { RunOutcome } from './job-result.js';
import { type LoadTargets, registerLoadGauges } from './load-gauges.js';
import { type QueueCounters, registerRequestMetrics } from './request-metrics.js';
import { type AccountLabels, backfillGauges, completenessGauges, streamFailedGauge } from './stream-gauges.js';

export type { RunOutcome } from './job-result.js';
export type { QueueCounters } from './request-metrics.js';

/** One account's run of a job, as the metrics record it. */
export interface FinishedRun {
  job: string;
  /**
   * The account's configured name: its series carry `account`. Absent for a
   * config without `accounts:`, whose series carry no `account` label, exactly
   * as before several accounts existed (its dashboards and alerts keep working).
   */
  account?: string;
  outcome: RunOutcome;
  durationMs: number;
  /** When the run finished (its success timestamp). */
  finishedAt: Date;
  /** A sync run's summary, when it produced one. */
  summary?: SyncSummary;
}

export interface DaemonMetrics {
  readonly registry: Registry;
  /** One account's run (every account of a job over several accounts is one). */
  recordRun(run: FinishedRun): void;
  /**
   * How a whole job ended (for several accounts, jobOutcome of theirs): counts the failed jobs in a
   * row; a success or a partial job resets the count, an interrupted one leaves it. A partial job
   * reached the API and committed output: the process works, and restarting it (what a failing
   * /healthz leads to) would heal no endpoint, no token and no other account.
   */
  recordJob(outcome: RunOutcome): void;
  /** A running sync's progress (of `account`, with several): the backfill gauges move while a long first sync runs. */
  recordProgress(progress: SyncProgress, account?: string): void;
  /** Failed jobs in a row (any job). */
  consecutiveFailures(): number;
}

const who = (account: string | undefined): AccountLabels => (account === undefined ? {} : { account });

/**
 * The daemon's Prometheus metrics. Run counters and gauges come from each
 * account's run and summary, labelled by `account` when the config lists
 * several; request counters are read from the request queues when scraped
 * (request-metrics.ts), one set of series per queue; load gauges from each
 * account's load records, as the status page read them last (load-gauges.ts).
 */
export function createDaemonMetrics(
  queues: () => readonly QueueCounters[],
  loads: LoadTargets = () => [],
): DaemonMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let failuresInARow = 0;

  const runs = new Counter({
    name: 'helpdesk_sync_runs_total',
    help: 'Runs the daemon finished, by job, account and outcome (succeeded, partial, failed, interrupted).',
    labelNames: ['job', 'account', 'outcome'] as const,
    registers: [registry],
  });
  const tableCounter = (name: string, help: string) =>
    new Counter({ name, help, labelNames: ['account', 'table'] as const, registers: [registry] });
  const rows = tableCounter(
    'helpdesk_sync_rows_written_total',
    'Rows written by sync runs, by table (tombstones included).',
  );
  const tombstones = tableCounter(
    'helpdesk_sync_tombstones_written_total',
    'Tombstone rows (deletions) written by sync runs, by table.',
  );
  const duration = new Histogram({
    name: 'helpdesk_sync_run_duration_seconds',
    help: 'Wall-clock duration of finished runs, by job and account.',
    labelNames: ['job', 'account'] as const,
    buckets: [1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14400],
    registers: [registry],
  });
  const lastSuccess = new Gauge({
    name: 'helpdesk_sync_last_success_timestamp_seconds',
    help: 'Unix time at which the last successful run of each job (and account) finished.',
    labelNames: ['job', 'account'] as const,
    registers: [registry],
  });
  const accountFailed = new Gauge({
    name: 'helpdesk_sync_account_failed',
    help: "With several accounts: whether the account's last run of the job failed (1: it ended before its manifest or its last write) or not (0).",
    labelNames: ['job', 'account'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'helpdesk_sync_consecutive_failed_runs',
    help: 'Failed runs in a row; /healthz fails once this reaches metrics.unhealthy_after_failures.',
    registers: [registry],
    collect() {
      this.set(failuresInARow);
    },
  });
  registerRequestMetrics(registry, queues);
  registerLoadGauges(registry, loads);

  const completeness = completenessGauges(registry);
  const streamFailures = streamFailedGauge(registry);
  const backfill = backfillGauges(registry);

  return {
    registry,
    recordProgress(progress, account) {
      if (progress.backfill) backfill(who(account), progress.backfill);
    },
    recordRun(run) {
      const account = who(run.account);
      runs.inc({ job: run.job, ...account, outcome: run.outcome });
      duration.observe({ job: run.job, ...account }, run.durationMs / 1000);
      if (run.outcome === 'succeeded') lastSuccess.set({ job: run.job, ...account }, run.finishedAt.getTime() / 1000);
      if (run.account !== undefined) accountFailed.set({ job: run.job, ...account }, run.outcome === 'failed' ? 1 : 0);
      for (const [table, counts] of Object.entries(run.summary?.tables ?? {})) {
        // Zero increments still create the series, so every table shows up from the first run.
        rows.inc({ ...account, table }, counts.rows);
        tombstones.inc({ ...account, table }, counts.tombstones);
      }
      if (run.summary) completeness(account, run.summary);
      if (run.summary) streamFailures(account, run.summary);
      if (run.summary?.backfill) backfill(account, run.summary.backfill);
    },
    recordJob(outcome) {
      if (outcome === 'failed') failuresInARow += 1;
      else if (outcome === 'succeeded' || outcome === 'partial') failuresInARow = 0;
    },
    consecutiveFailures: () => failuresInARow,
  };
}
