import { type Clock, isoNow, systemClock } from '../clock.js';
import { describeLoadTarget } from '../config/load-target.js';
import type { Config } from '../config/schema.js';
import { type StateSettings, stateSettingsOf } from '../config/state-location.js';
import { HelpdeskSyncError } from '../errors.js';
import type { Manifest } from '../output/manifest.js';
import { type ListedManifests, type LoadJobOptions, loadJob, resolveLoadTarget } from './load-job.js';
import type { LoadSummary } from './load-summary.js';

/**
 * How one load went for one account (docs/loading.md, "The warehouse on the
 * status page"), what its state remembers of it: never a secret (the target is
 * described, the error is its code).
 */
export interface AccountLoadOutcome {
  /** The target, described without secrets (describeLoadTarget). */
  target: string;
  /** When the load began, when it listed the manifests; absent when it failed before listing them. */
  listed_at?: string;
  finished_at: string;
  outcome: LoadSummary['status'];
  /** The account's manifests this load loaded, and their rows as the manifests count them. */
  manifests_loaded: number;
  rows: number;
  /** The error's stable code, and the manifest the load stopped at. */
  error?: { code: string; run_id?: string };
  /** The account's manifests it listed and did not load; absent when it listed none. */
  waiting?: string[];
}

/** How one load ended: its summary, or the error it threw. */
export type LoadEnded = { summary: LoadSummary } | { error: unknown };

const rowsOf = (manifests: readonly Manifest[]) =>
  manifests.reduce((n, m) => n + Object.values(m.tables).reduce((a, b) => a + b, 0), 0);

/** One account's outcome; `mine` tells its manifests from the other accounts'. */
export function accountLoadOutcome(
  load: { target: string; ended: LoadEnded; listed?: ListedManifests; listedAt: string; finishedAt: string },
  mine: (manifest: Manifest) => boolean,
): AccountLoadOutcome {
  const { ended, listed } = load;
  const summary = 'summary' in ended ? ended.summary : undefined;
  const code =
    'error' in ended
      ? ended.error instanceof HelpdeskSyncError
        ? ended.error.code
        : 'LOAD_FAILED'
      : summary?.failure?.code;
  // The manifests it loaded are the first of those it listed, in load order.
  const loaded = listed ? listed.pending.slice(0, listed.loaded).filter(mine) : [];
  return {
    target: load.target,
    ...(listed ? { listed_at: load.listedAt } : {}),
    finished_at: load.finishedAt,
    outcome: summary?.status ?? 'failed',
    manifests_loaded: loaded.length,
    rows: rowsOf(loaded),
    ...(code === undefined ? {} : { error: { code, ...(summary?.failure ? { run_id: summary.failure.run_id } : {}) } }),
    ...(listed
      ? {
          waiting: listed.pending
            .slice(listed.loaded)
            .filter(mine)
            .map((m) => m.run_id),
        }
      : {}),
  };
}

/** Keeps one account's outcome beside its state (the roots pass the state's writer, state/load-records.ts). */
export type RecordLoad = (state: StateSettings, outcome: AccountLoadOutcome) => Promise<void>;

/**
 * A load whose outcome every account it loaded remembers (through `record`),
 * so the status page and the daemon's metrics tell of the warehouse without
 * opening it. A load that throws is recorded as failed and the error goes on;
 * a record that cannot be kept is logged and costs the load nothing.
 */
export async function recordedLoad(config: Config, options: LoadJobOptions, record: RecordLoad): Promise<LoadSummary> {
  const clock: Pick<Clock, 'now'> = options.clock ?? systemClock;
  // A wrong --into throws here, before there is a target to record.
  const target = describeLoadTarget(resolveLoadTarget(config, options.into).target);
  const listedAt = isoNow(clock);
  let listed: ListedManifests | undefined;
  let ended: LoadEnded;
  try {
    const onListed = (l: ListedManifests) => {
      listed = l;
      options.onListed?.(l);
    };
    ended = { summary: await loadJob(config, { ...options, onListed }) };
  } catch (error) {
    ended = { error };
  }
  const load = { target, ended, listedAt, finishedAt: isoNow(clock), ...(listed ? { listed } : {}) };
  const accounts = options.accounts ?? [config];
  for (const account of accounts) {
    const name = account.account?.name;
    // One account owns every manifest; with several, each the account it was read as.
    const mine = (m: Manifest) => accounts.length === 1 || listed?.accountOf(m) === name;
    try {
      await record(stateSettingsOf(account), accountLoadOutcome(load, mine));
    } catch (error) {
      options.logger.warn(
        { event: 'load.record_failed', target, ...(name ? { account: name } : {}), err: error },
        "could not record the load's outcome beside the state (the status page shows the previous one)",
      );
    }
  }
  if ('error' in ended) throw ended.error;
  return ended.summary;
}
