import { type Clock, systemClock } from '../clock.js';
import type { Logger } from '../log.js';
import { renderAccountsStatusPage } from '../report/render-accounts-page.js';
import { renderStatusPage } from '../report/render-status-page.js';
import type { AccountState } from '../report/status-from-config.js';
import type { AccountFailure, StatusInput } from '../report/status-view.js';
import type { TargetStatus } from '../report/warehouse-status.js';
import type { RunHistoryEntry } from '../state/run-history.js';
import type { SyncProgress } from '../sync/sync-types.js';
import type { AccountRun } from './job-result.js';

/** One account the page shows. */
export interface StatusAccount {
  /** Its configured name; absent for a config without `accounts:` (the page of one account). */
  name?: string;
  /** The API's URL, without credentials. */
  source: string;
  /** Where the account's runs write their files (report/status-from-config.ts, outputLocation). */
  output?: string;
  /** Reads the account's runs and load records from its state (opened and closed by the caller's function). */
  read: () => Promise<AccountState>;
}

export interface StatusSourceOptions {
  accounts: readonly StatusAccount[];
  /** The next time schedule.sync fires, read when the page is drawn. */
  schedule?: { expression: string; timezone: string; next: () => Date | undefined };
  logger: Logger;
  clock?: Pick<Clock, 'now'>;
}

export interface StatusSource {
  /** Reads every account's runs from its state again (at start and after each run). */
  refresh(): Promise<void>;
  /** A running sync's latest progress (of `account`, with several), shown as "running now"; undefined once it ended. */
  progress(progress: SyncProgress | undefined, account?: string): void;
  /** A sync job ended: each account's part, so a failure the state keeps no run of is shown too. */
  finished(runs: readonly AccountRun[]): void;
  /** The page, from the runs read last and the progress. */
  render(): string;
  /** Each account's load targets as read last (the metrics' load gauges); an account whose records are unread has none. */
  warehouse(): Array<{ account?: string; targets: readonly TargetStatus[] }>;
}

interface Shown {
  runs: RunHistoryEntry[];
  warehouse?: TargetStatus[];
  live?: SyncProgress;
  failure?: AccountFailure;
}

/**
 * The daemon's status page: each account's runs, read from its state once at
 * start and again after each run (never per request: a state in S3 is
 * downloaded to be read), a running sync's progress, the failures of accounts
 * whose run ended before its state recorded it, and the schedule. A failed read
 * keeps that account's runs read before and is logged. A config without
 * `accounts:` gets the page of one account; one that lists them, the page of
 * several (src/report/render-accounts-page.ts).
 */
export function createStatusSource(options: StatusSourceOptions): StatusSource {
  const clock = options.clock ?? systemClock;
  const shown = new Map<string | undefined, Shown>(options.accounts.map((a) => [a.name, { runs: [] }]));
  const of = (name: string | undefined) => shown.get(name) ?? { runs: [] };
  return {
    async refresh() {
      await Promise.all(
        options.accounts.map(async (account) => {
          try {
            const read = await account.read();
            const part = of(account.name);
            part.runs = read.runs;
            // Records that could not be read this time: the last ones read stay.
            if (read.warehouse) part.warehouse = read.warehouse;
          } catch (error) {
            options.logger.warn(
              { event: 'daemon.status_read_failed', ...(account.name ? { account: account.name } : {}), err: error },
              'could not read the runs for the status page',
            );
          }
        }),
      );
    },
    progress(p, account) {
      if (p === undefined && account === undefined) for (const s of shown.values()) delete s.live;
      else if (p === undefined) delete of(account).live;
      else of(account).live = p;
    },
    finished(runs) {
      const at = new Date(clock.now());
      for (const run of runs) {
        if (run.outcome === 'failed' && run.failure) of(run.account).failure = { at, ...run.failure };
      }
    },
    render() {
      const { schedule } = options;
      const next = schedule?.next();
      const scheduled: Pick<StatusInput, 'schedule'> = schedule
        ? { schedule: { expression: schedule.expression, timezone: schedule.timezone, ...(next ? { next } : {}) } }
        : {};
      const generatedAt = new Date(clock.now());
      const [only] = options.accounts;
      if (options.accounts.length === 1 && only?.name === undefined) {
        const { runs, live, warehouse } = of(undefined);
        return renderStatusPage({
          runs,
          ...(warehouse ? { warehouse } : {}),
          generatedAt,
          source: only?.source ?? '',
          ...(only?.output === undefined ? {} : { output: only.output }),
          drawnBy: 'daemon',
          ...scheduled,
          ...(live ? { live } : {}),
        });
      }
      return renderAccountsStatusPage({
        generatedAt,
        drawnBy: 'daemon',
        ...scheduled,
        accounts: options.accounts.map((a) => ({
          name: a.name ?? '',
          source: a.source,
          ...(a.output === undefined ? {} : { output: a.output }),
          ...of(a.name),
        })),
      });
    },
    warehouse: () =>
      options.accounts.map((a) => ({
        ...(a.name === undefined ? {} : { account: a.name }),
        targets: of(a.name).warehouse ?? [],
      })),
  };
}
