import { type Clock, systemClock } from '../clock.js';
import type { Logger } from '../log.js';
import { renderStatusPage } from '../report/render-status-page.js';
import type { StatusInput } from '../report/status-view.js';
import type { RunHistoryEntry } from '../state/run-history.js';
import type { SyncProgress } from '../sync/sync-types.js';

export interface StatusSourceOptions {
  /** Reads the runs from the state (opened and closed by the caller's function). */
  loadRuns: () => Promise<RunHistoryEntry[]>;
  source: string;
  /** The next time schedule.sync fires, read when the page is drawn. */
  schedule?: { expression: string; timezone: string; next: () => Date | undefined };
  logger: Logger;
  clock?: Pick<Clock, 'now'>;
}

export interface StatusSource {
  /** Reads the runs from the state again (at start and after each run). */
  refresh(): Promise<void>;
  /** A running sync's latest progress (shown as "running now"); undefined once it ended. */
  progress(progress: SyncProgress | undefined): void;
  /** The page, from the runs read last and the progress. */
  render(): string;
}

/**
 * The daemon's status page: the state's runs, read once at start and again after
 * each run (never per request: a state in S3 is downloaded to be read), the
 * running sync's progress, and the schedule. A failed read keeps the runs read
 * before and is logged.
 */
export function createStatusSource(options: StatusSourceOptions): StatusSource {
  const clock = options.clock ?? systemClock;
  let runs: RunHistoryEntry[] = [];
  let live: SyncProgress | undefined;
  return {
    async refresh() {
      try {
        runs = await options.loadRuns();
      } catch (error) {
        options.logger.warn(
          { event: 'daemon.status_read_failed', err: error },
          'could not read the runs for the status page',
        );
      }
    },
    progress(p) {
      live = p;
    },
    render() {
      const { schedule } = options;
      const next = schedule?.next();
      const input: StatusInput = {
        runs,
        generatedAt: new Date(clock.now()),
        source: options.source,
        ...(schedule
          ? { schedule: { expression: schedule.expression, timezone: schedule.timezone, ...(next ? { next } : {}) } }
          : {}),
        ...(live ? { live } : {}),
      };
      return renderStatusPage(input);
    },
  };
}
