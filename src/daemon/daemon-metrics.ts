import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestStats } from '../api/index.js';
import type { BackfillProgress } from '../streams/types.js';
import type { SyncProgress, SyncSummary } from '../sync/sync-types.js';

/** `partial`: a sync that committed what it could while some part failed (its summary's `failed_streams`). */
export type RunOutcome = 'succeeded' | 'partial' | 'failed' | 'interrupted';

export interface FinishedRun {
  job: string;
  outcome: RunOutcome;
  durationMs: number;
  /** When the run finished (its success timestamp). */
  finishedAt: Date;
  /** A sync run's summary, when it produced one. */
  summary?: SyncSummary;
}

export interface DaemonMetrics {
  readonly registry: Registry;
  recordRun(run: FinishedRun): void;
  /** A running sync's progress: the backfill gauges move while a long first sync runs. */
  recordProgress(progress: SyncProgress): void;
  /**
   * Failed runs in a row (any job); a success or a partial run resets it, an interrupted run leaves it.
   * A partial run reached the API with a valid token and committed its output: the process works, and
   * restarting it (what a failing /healthz leads to) would heal no endpoint.
   */
  consecutiveFailures(): number;
}

/**
 * The daemon's Prometheus metrics. Run counters come from each run's outcome and
 * summary; request counters are read from the process-wide queue when scraped,
 * so they cover every job that shares it (sync and apply) and always equal the
 * sum of the runs' own figures.
 */
export function createDaemonMetrics(requestStats: () => RequestStats): DaemonMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let failuresInARow = 0;

  const runs = new Counter({
    name: 'helpdesk_sync_runs_total',
    help: 'Runs the daemon finished, by job and outcome (succeeded, partial, failed, interrupted).',
    labelNames: ['job', 'outcome'] as const,
    registers: [registry],
  });
  const rows = new Counter({
    name: 'helpdesk_sync_rows_written_total',
    help: 'Rows written by sync runs, by table (tombstones included).',
    labelNames: ['table'] as const,
    registers: [registry],
  });
  const tombstones = new Counter({
    name: 'helpdesk_sync_tombstones_written_total',
    help: 'Tombstone rows (deletions) written by sync runs, by table.',
    labelNames: ['table'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'helpdesk_sync_run_duration_seconds',
    help: 'Wall-clock duration of finished runs, by job.',
    labelNames: ['job'] as const,
    buckets: [1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14400],
    registers: [registry],
  });
  const lastSuccess = new Gauge({
    name: 'helpdesk_sync_last_success_timestamp_seconds',
    help: 'Unix time at which the last successful run of each job finished.',
    labelNames: ['job'] as const,
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
  new Counter({
    name: 'helpdesk_sync_requests_total',
    help: 'HTTP attempts sent to the API, by status ("network" and "timeout" when there was none).',
    labelNames: ['status'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [status, count] of Object.entries(requestStats().byStatus)) this.inc({ status }, count);
    },
  });
  new Counter({
    name: 'helpdesk_sync_rate_limited_total',
    help: 'HTTP 429 responses received.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(requestStats().rateLimited);
    },
  });
  new Counter({
    name: 'helpdesk_sync_retries_total',
    help: 'Attempts that repeated an earlier one (after a 429, a 5xx, a reset or a timeout).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(requestStats().retries);
    },
  });
  new Counter({
    name: 'helpdesk_sync_rate_budget_wait_seconds_total',
    help: 'Seconds ready requests were held back for rate budget (pacing and 429 pauses).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(requestStats().waitedMs / 1000);
    },
  });

  const completeness = completenessGauges(registry);
  const streamFailures = streamFailedGauge(registry);
  const backfill = backfillGauges(registry);

  return {
    registry,
    recordProgress(progress) {
      if (progress.backfill) backfill(progress.backfill);
    },
    recordRun(run) {
      runs.inc({ job: run.job, outcome: run.outcome });
      duration.observe({ job: run.job }, run.durationMs / 1000);
      if (run.outcome === 'succeeded') lastSuccess.set({ job: run.job }, run.finishedAt.getTime() / 1000);
      if (run.outcome === 'failed') failuresInARow += 1;
      else if (run.outcome === 'succeeded' || run.outcome === 'partial') failuresInARow = 0;
      for (const [table, counts] of Object.entries(run.summary?.tables ?? {})) {
        // Zero increments still create the series, so every table shows up from the first run.
        rows.inc({ table }, counts.rows);
        tombstones.inc({ table }, counts.tombstones);
      }
      if (run.summary) completeness(run.summary);
      if (run.summary) streamFailures(run.summary);
      if (run.summary?.backfill) backfill(run.summary.backfill);
    },
    consecutiveFailures: () => failuresInARow,
  };
}

/**
 * Per stream, the last finished run's completeness figure (docs/streams.md,
 * "Completeness"): alert on `helpdesk_sync_completeness_unexplained > 0`. A
 * stream that did not finish in a run keeps its previous values.
 */
function completenessGauges(registry: Registry): (summary: SyncSummary) => void {
  const gauge = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['stream'] as const, registers: [registry] });
  const expected = gauge(
    'helpdesk_sync_completeness_expected',
    'What the API says exists, per stream, at the last run that measured it (meta.total, list length, report days).',
  );
  const live = gauge('helpdesk_sync_completeness_live', 'Keys the state held as live after that run, per stream.');
  const unexplained = gauge(
    'helpdesk_sync_completeness_unexplained',
    'expected - live - the differences the run explained; > 0: something is missing for no known reason (INCOMPLETE).',
  );
  return (summary) => {
    for (const f of summary.completeness) {
      expected.set({ stream: f.stream }, f.expected);
      live.set({ stream: f.stream }, f.live);
      unexplained.set({ stream: f.stream }, f.unexplained);
    }
  };
}

/**
 * Per stream, whether it failed in the last sync run that selected it (1) or not (0): what
 * a partial run left behind, by name (docs/streams.md, "When a stream fails"). An interrupted
 * run sets only the streams that failed in it: the others may not have run at all.
 */
function streamFailedGauge(registry: Registry): (summary: SyncSummary) => void {
  const failed = new Gauge({
    name: 'helpdesk_sync_stream_failed',
    help: 'Whether the stream failed in the last sync run that selected it (1) or not (0); the run ended partial.',
    labelNames: ['stream'] as const,
    registers: [registry],
  });
  return (summary) => {
    const names = new Set((summary.failed_streams ?? []).map((f) => f.stream));
    for (const stream of names) failed.set({ stream }, 1);
    if (summary.status === 'interrupted') return;
    for (const stream of summary.streams ?? []) if (!names.has(stream)) failed.set({ stream }, 0);
  };
}

/** Where a recent-first backfill stands: conversations read, of how many, and the time left at the run's pace. */
function backfillGauges(registry: Registry): (progress: BackfillProgress) => void {
  const done = new Gauge({
    name: 'helpdesk_sync_backfill_done',
    help: 'Conversations a recent-first backfill has read (its position in the oldest-first list).',
    registers: [registry],
  });
  const total = new Gauge({
    name: 'helpdesk_sync_backfill_total',
    help: 'Conversations a recent-first backfill has to read (the listing meta.total).',
    registers: [registry],
  });
  const eta = new Gauge({
    name: 'helpdesk_sync_backfill_eta_seconds',
    help: 'Seconds a recent-first backfill still needs at the pace of the run that read it last; 0 once complete.',
    registers: [registry],
  });
  return (progress) => {
    done.set(progress.done);
    total.set(progress.total);
    if (progress.status === 'complete') eta.set(0);
    else if (progress.eta_ms !== undefined) eta.set(progress.eta_ms / 1000);
  };
}
