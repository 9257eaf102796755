import { type Clock, isoNow, systemClock } from '../clock.js';
import { describeLoadTarget } from '../config/load-target.js';
import type { Config } from '../config/schema.js';
import { stateSettingsOf } from '../config/state-location.js';
import { HelpdeskSyncError } from '../errors.js';
import type { Manifest } from '../output/manifest.js';
import { type LoadRecord, type LoadRecordStore, openLoadRecords } from '../state/load-records.js';
import { type ListedManifests, type LoadJobOptions, loadJob, resolveLoadTarget } from './load-job.js';
import type { LoadSummary } from './load-summary.js';

const rowsOf = (manifests: readonly Manifest[]) =>
  manifests.reduce((n, m) => n + Object.values(m.tables).reduce((a, b) => a + b, 0), 0);

/** How one load ended, for the records: its summary, or the error it threw. */
type Ended = { summary: LoadSummary } | { error: unknown };

/** One account's record of a load (`listed`: what the load listed, absent when it failed before listing). */
export function loadRecordOf(
  target: string,
  ended: Ended,
  listed: { pending: readonly Manifest[]; loaded: number; listedAt: string } | undefined,
  times: { finishedAt: string; previous?: LoadRecord },
): LoadRecord {
  const loaded = listed ? listed.pending.slice(0, listed.loaded) : [];
  const summary = 'summary' in ended ? ended.summary : undefined;
  const failed = 'error' in ended ? ended.error : undefined;
  const code =
    failed === undefined ? summary?.failure?.code : failed instanceof HelpdeskSyncError ? failed.code : 'LOAD_FAILED';
  const outcome = summary?.status ?? 'failed';
  const succeeded = outcome === 'succeeded' ? times.finishedAt : times.previous?.last_succeeded_at;
  return {
    target,
    // A load that never listed says nothing of which manifests are loaded: the previous listing stands.
    listed_at: listed?.listedAt ?? times.previous?.listed_at ?? '',
    finished_at: times.finishedAt,
    outcome,
    ...(succeeded === undefined ? {} : { last_succeeded_at: succeeded }),
    manifests_loaded: loaded.length,
    rows: rowsOf(loaded),
    ...(code === undefined ? {} : { error: { code, ...(summary?.failure ? { run_id: summary.failure.run_id } : {}) } }),
    waiting: listed ? listed.pending.slice(listed.loaded).map((m) => m.run_id) : (times.previous?.waiting ?? []),
  };
}

export interface RecordedLoadOptions {
  /** Opens an account's load records. @default openLoadRecords of its state */
  records?: (account: Config) => LoadRecordStore & { close(): void };
  /** @default loadJob */
  load?: typeof loadJob;
}

/**
 * A load whose outcome each account's state remembers (state/load-records.ts),
 * so the status page and the daemon's metrics tell of the warehouse without
 * opening it: when, how many manifests and rows, succeeded or failed (its code),
 * and which of the account's manifests wait. A load that throws is recorded as
 * failed and the error goes on; a record that cannot be written is logged and
 * costs the load nothing.
 */
export async function recordedLoad(
  config: Config,
  options: LoadJobOptions,
  deps: RecordedLoadOptions = {},
): Promise<LoadSummary> {
  const clock: Pick<Clock, 'now'> = options.clock ?? systemClock;
  // A wrong --into throws here, before there is a target to record.
  const target = describeLoadTarget(resolveLoadTarget(config, options.into).target);
  const listedAt = isoNow(clock);
  let listed: ListedManifests | undefined;
  let ended: Ended;
  try {
    ended = {
      summary: await (deps.load ?? loadJob)(config, {
        ...options,
        onListed: (l) => {
          listed = l;
          options.onListed?.(l);
        },
      }),
    };
  } catch (error) {
    ended = { error };
  }
  await writeRecords(config, options, deps, { target, ended, listed, listedAt, finishedAt: isoNow(clock) });
  if ('error' in ended) throw ended.error;
  return ended.summary;
}

async function writeRecords(
  config: Config,
  options: LoadJobOptions,
  deps: RecordedLoadOptions,
  load: { target: string; ended: Ended; listed: ListedManifests | undefined; listedAt: string; finishedAt: string },
): Promise<void> {
  const accounts = options.accounts ?? [config];
  for (const account of accounts) {
    const name = account.account?.name;
    const { listed } = load;
    // One account owns every manifest; with several, each its own (the account it was read as).
    const mine = (m: Manifest) => accounts.length === 1 || listed?.accountOf(m) === name;
    const own = listed && {
      pending: listed.pending.filter(mine),
      loaded: listed.pending.slice(0, listed.loaded).filter(mine).length,
      listedAt: load.listedAt,
    };
    let store: (LoadRecordStore & { close(): void }) | undefined;
    try {
      store = (deps.records ?? ((a: Config) => openLoadRecords(stateSettingsOf(a))))(account);
      const previous = (await store.read())[load.target];
      await store.write(
        loadRecordOf(load.target, load.ended, own, { finishedAt: load.finishedAt, ...(previous ? { previous } : {}) }),
      );
    } catch (error) {
      options.logger.warn(
        { event: 'load.record_failed', target: load.target, ...(name ? { account: name } : {}), err: error },
        "could not record the load's outcome beside the state (the status page shows the previous one)",
      );
    } finally {
      store?.close();
    }
  }
}
