import { type Clock, systemClock } from '../clock.js';
import { formatDuration } from '../format-duration.js';
import type { Logger } from '../log.js';
import { jobFigures, jobLine } from './job-line.js';
import { type JobResult, jobOutcome } from './job-result.js';

/** A job the daemon runs on a schedule, for one account or several; it must stop promptly when the signal aborts. */
export type DaemonJob = (signal: AbortSignal) => Promise<JobResult>;

/** The part of node-cron the daemon uses (passed in so tests drive ticks by hand). */
export interface CronScheduler {
  schedule(
    expression: string,
    fn: () => Promise<void>,
    options: { name: string; timezone: string },
  ): { stop(): unknown };
}

export interface DaemonOptions {
  schedules: Partial<Record<'sync' | 'push', string>>;
  jobs: Partial<Record<'sync' | 'push', DaemonJob>>;
  timezone: string;
  cron: CronScheduler;
  logger: Logger;
  /** Times each run (`durationMs`). @default systemClock */
  clock?: Pick<Clock, 'now'>;
  /** Told about every finished run (metrics, health); `result` is what the job resolved with. */
  onRunFinished?: (
    run: { job: 'sync' | 'push'; durationMs: number } & (
      | { ok: true; result: JobResult }
      | { ok: false; error: unknown }
    ),
  ) => void;
}

export interface Daemon {
  /** Stops scheduling, aborts the running job and waits for it to finish its commit. */
  stop(): Promise<void>;
  /** Resolves when the running job (if any) has finished. */
  idle(): Promise<void>;
}

/**
 * Runs `sync` and `push` on their cron schedules in one process. Jobs never
 * overlap, not even a sync with a push: they share one state database and one
 * rate budget. A tick that finds a job still running is skipped and logged, not
 * queued, so a slow run cannot build a backlog. A failed run is logged and the
 * schedule goes on: the next tick recovers (checkpoints make that safe).
 */
export function startDaemon(options: DaemonOptions): Daemon {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  let running: { name: string; done: Promise<void>; controller: AbortController } | undefined;
  let stopping = false;

  const tick = (name: 'sync' | 'push', job: DaemonJob) => async () => {
    if (stopping) return;
    if (running) {
      logger.warn(
        { event: 'daemon.tick_skipped', job: name, busy_with: running.name },
        `${name} skipped: ${running.name} still running`,
      );
      return;
    }
    const controller = new AbortController();
    const started = clock.now();
    const done = job(controller.signal).then(
      (result) => {
        const durationMs = clock.now() - started;
        // With several accounts: partial when some account failed or ended partial, failed when every one failed.
        const outcome = jobOutcome(result.runs);
        // One line per run: what a person reads in the human log (the run's own summary events are JSON only).
        logger.info(
          { event: 'daemon.job_finished', job: name, outcome, duration_ms: durationMs, ...jobFigures(result) },
          jobLine(name, outcome, durationMs, result),
        );
        options.onRunFinished?.({ job: name, durationMs, ok: true, result });
      },
      (error: unknown) => {
        const durationMs = clock.now() - started;
        logger.error(
          { event: 'daemon.job_failed', job: name, duration_ms: durationMs, err: error },
          `${name} failed after ${formatDuration(durationMs)}`,
        );
        options.onRunFinished?.({ job: name, durationMs, ok: false, error });
      },
    );
    running = { name, done, controller };
    await done;
    running = undefined;
  };

  const tasks: Array<{ stop(): unknown }> = [];
  for (const name of ['sync', 'push'] as const) {
    const expression = options.schedules[name];
    const job = options.jobs[name];
    if (!expression || !job) continue;
    tasks.push(options.cron.schedule(expression, tick(name, job), { name, timezone: options.timezone }));
    logger.info(
      { event: 'daemon.scheduled', job: name, cron: expression, timezone: options.timezone },
      `${name} scheduled: ${expression}`,
    );
  }

  return {
    async stop() {
      stopping = true;
      for (const task of tasks) task.stop();
      if (running) {
        running.controller.abort();
        await running.done;
      }
    },
    async idle() {
      await running?.done;
    },
  };
}
