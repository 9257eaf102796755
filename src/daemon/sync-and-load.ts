import type { Config } from '../config/schema.js';
import { LoadError, UsageError } from '../errors.js';
import { loadJob } from '../load/load-job.js';
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
): Promise<SyncJobResult> {
  const result = await syncJob(config, options);
  if (!config.load || result.summary.status === 'interrupted' || options.signal.aborted) return result;
  const around = options.aroundLoad ?? ((load) => load());
  const summary = await around(() =>
    loadJob(config, { logger: options.logger, signal: options.signal, clock: options.clock }),
  );
  if (summary.status === 'failed') {
    throw new LoadError(
      `load into ${summary.target} failed at manifest ${summary.failure?.run_id}: ${summary.failure?.message}`,
    );
  }
  return result;
}

/** The load that follows a sync of several accounts. */
export type AccountsLoad = (options: {
  logger: SyncJobOptions['logger'];
  signal: AbortSignal;
  aroundLoad?: <T>(load: () => Promise<T>) => Promise<T>;
}) => Promise<void>;

/**
 * The daemon's load after a sync of several accounts, decided when the daemon
 * starts: none without a `load:` block. With one, every account's output is to
 * go into the one warehouse of `load:`, which `load` cannot do yet: it reads one
 * account's manifests, and a warehouse holds one pipeline (one source). Until it
 * reads every account's, such a config is refused here, before any run, as
 * `sync --load` refuses it; this is the one place the daemon's load of several
 * accounts is to be made.
 */
export function accountsLoader(accounts: readonly Config[]): AccountsLoad | undefined {
  if (!accounts.some((a) => a.load)) return undefined;
  throw new UsageError(
    'daemon: a config that lists accounts is not loaded by the daemon yet; leave load: out of it and run the daemon for the syncs',
  );
}
