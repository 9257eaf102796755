import type { RunHistoryEntry } from '../state/run-history.js';
import type { CompletenessFigure } from '../streams/completeness.js';
import type { BackfillProgress } from '../streams/types.js';
import type { SyncProgress, SyncSummary } from '../sync/sync-types.js';
import type { TargetStatus } from './warehouse-status.js';

/**
 * Who draws the page: the daemon (its schedule runs, so the next run is known) or `report --html`
 * (a copy from the state: no daemon is known to run, so no next run is claimed).
 */
export type DrawnBy = 'daemon' | 'report';

/** What the status page is drawn from: the state's runs, the schedule, and a sync running now (the daemon). */
export interface StatusInput {
  runs: RunHistoryEntry[];
  generatedAt: Date;
  /** The API's URL, without credentials. */
  source: string;
  /** Where the runs write their files: a local directory or `s3://bucket/prefix`. */
  output?: string;
  /** schedule.sync; `next` only when the daemon draws the page. */
  schedule?: { expression: string; timezone: string; next?: Date };
  /** @default 'report' */
  drawnBy?: DrawnBy;
  live?: SyncProgress;
  /** The account's name, for a page of one account of a config that lists several. */
  account?: string;
  /** Each load target's last load and lag (report/warehouse-status.ts); absent when the load records could not be read. */
  warehouse?: TargetStatus[];
}

/**
 * A run the state holds no record of, which the daemon saw fail: one that ended
 * before it began its output (a 401 on its first request, an unreachable host,
 * a lock held by another run).
 */
export interface AccountFailure {
  at: Date;
  code: string;
  message: string;
}

/** One account on the page of several: its runs, a sync of it running now, a failure newer than its runs. */
export interface AccountStatusInput {
  /** The account's configured name. */
  name: string;
  /** The account's API URL, without credentials. */
  source: string;
  /** Where the account's runs write their files. */
  output?: string;
  runs: RunHistoryEntry[];
  live?: SyncProgress;
  failure?: AccountFailure;
  /** The account's load targets, read from its state (StatusInput's `warehouse`). */
  warehouse?: TargetStatus[];
}

/** What the page of several accounts is drawn from: each account's part, and the schedule they share. */
export interface AccountsStatusInput {
  accounts: AccountStatusInput[];
  generatedAt: Date;
  schedule?: StatusInput['schedule'];
  /** @default 'report' */
  drawnBy?: DrawnBy;
}

/** Whether a failure came after the newest recorded run began (so it is the account's last word). */
export function isNewer(failure: AccountFailure, last: { started_at: string } | undefined): boolean {
  return last === undefined || failure.at.getTime() > Date.parse(last.started_at);
}

/** `partial`: the run committed what it could while some part failed (its summary's `failed_streams`). */
export type RunOutcomeWord = 'succeeded' | 'partial' | 'interrupted' | 'failed' | 'crashed' | 'running';

/** One run as the page shows it. */
export interface RunView {
  run_id: string;
  started_at: string;
  outcome: RunOutcomeWord;
  duration_ms?: number;
  summary?: SyncSummary;
}

/**
 * How a run ended, in the words a person uses: a run stopped by a signal, and a
 * partial run, still finish their manifest, so their summary says which.
 */
export function runView(run: RunHistoryEntry): RunView {
  const summary = (run.summary ?? undefined) as SyncSummary | undefined;
  const outcome: RunOutcomeWord =
    run.status === 'finished'
      ? (summary?.status ?? 'succeeded')
      : run.status === 'aborted' || run.status === 'failed'
        ? 'failed'
        : run.status;
  const duration =
    summary?.duration_ms ?? (run.finished_at ? Date.parse(run.finished_at) - Date.parse(run.started_at) : undefined);
  return {
    run_id: run.run_id,
    started_at: run.started_at,
    outcome,
    ...(duration !== undefined && Number.isFinite(duration) ? { duration_ms: duration } : {}),
    ...(summary ? { summary } : {}),
  };
}

/** Rows written by a run: changed rows and tombstones over every table. */
export function rowsOf(summary: SyncSummary): { rows: number; tombstones: number } {
  let rows = 0;
  let tombstones = 0;
  for (const c of Object.values(summary.tables)) {
    rows += c.rows;
    tombstones += c.tombstones;
  }
  return { rows, tombstones };
}

/** Per stream, the latest figure (newest run that measured it) and the figures of older runs, oldest first. */
export function completenessByStream(
  runs: readonly RunView[],
): Array<{ latest: CompletenessFigure; run_id: string; history: CompletenessFigure[] }> {
  const byStream = new Map<string, { latest: CompletenessFigure; run_id: string; history: CompletenessFigure[] }>();
  for (const run of runs) {
    for (const figure of run.summary?.completeness ?? []) {
      const entry = byStream.get(figure.stream);
      if (entry) entry.history.unshift(figure);
      else byStream.set(figure.stream, { latest: figure, run_id: run.run_id, history: [figure] });
    }
  }
  return [...byStream.values()];
}

/** Where the backfill stands: a running sync's word, else the newest run's that carried one. */
export function latestBackfill(
  runs: readonly RunView[],
  live?: SyncProgress,
): { backfill: BackfillProgress; run_id: string } | undefined {
  if (live?.backfill) return { backfill: live.backfill, run_id: live.run_id };
  const run = runs.find((r) => r.summary?.backfill);
  return run?.summary?.backfill ? { backfill: run.summary.backfill, run_id: run.run_id } : undefined;
}
