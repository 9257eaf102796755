import type { ParsedConfigFile } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { LoadError } from '../errors.js';
import { loadOfConfigFile } from '../load/load-job.js';
import type { LoadSummary } from '../load/load-summary.js';
import { recordedLoad } from '../load/recorded-load.js';
import { recordLoadBesideState } from '../state/load-records.js';
import { type SyncJobOptions, type SyncJobResult, syncJob } from '../sync/sync-job.js';

/**
 * The daemon's sync job: a sync, then, when the config has `load:`, a load of what
 * it wrote (after a sync that succeeded or ended partial, not after one that was
 * stopped: what a partial run committed is as consistent as any run's). A load that
 * fails fails the job, so the daemon's health and metrics show a warehouse that
 * falls behind; the output and its manifests are safe, and the next run loads them.
 */
export async function syncAndLoad(
  config: Config,
  options: SyncJobOptions & {
    signal: AbortSignal;
    /** Runs the load (the CLI's runs it under V8's own collector: cli/gc-tuning.ts). */
    aroundLoad?: <T>(load: () => Promise<T>) => Promise<T>;
  },
): Promise<SyncJobResult & { load?: LoadSummary }> {
  const result = await syncJob(config, options);
  if (!config.load || result.summary.status === 'interrupted' || options.signal.aborted) return result;
  const around = options.aroundLoad ?? ((load) => load());
  const summary = await around(() =>
    recordedLoad(
      config,
      { logger: options.logger, signal: options.signal, clock: options.clock },
      recordLoadBesideState,
    ),
  );
  if (summary.status === 'failed') {
    throw new LoadError(
      `load into ${summary.target} failed at manifest ${summary.failure?.run_id}: ${summary.failure?.message}`,
    );
  }
  return { ...result, load: summary };
}

/** The load that follows a sync of several accounts. */
export type AccountsLoad = (options: {
  logger: SyncJobOptions['logger'];
  signal: AbortSignal;
  aroundLoad?: <T>(load: () => Promise<T>) => Promise<T>;
}) => Promise<LoadSummary>;

/**
 * The daemon's load after a sync of several accounts: none without a `load:`
 * block; with one, one load of every account's output into the one warehouse
 * (`loadJob` with the accounts: each account's manifests in one run order, each
 * row naming its account), as `sync --load` does. A load that fails fails the
 * job, as for one account.
 */
export function accountsLoader(parsed: ParsedConfigFile): AccountsLoad | undefined {
  const { config, accounts } = loadOfConfigFile(parsed);
  if (!config.load) return undefined;
  return async ({ logger, signal, aroundLoad }) => {
    const around = aroundLoad ?? ((load) => load());
    const summary = await around(() =>
      recordedLoad(config, { logger, signal, ...(accounts ? { accounts } : {}) }, recordLoadBesideState),
    );
    if (summary.status === 'failed') {
      throw new LoadError(
        `load into ${summary.target} failed at manifest ${summary.failure?.run_id}: ${summary.failure?.message}`,
      );
    }
    return summary;
  };
}
