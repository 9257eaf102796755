import type { Config } from '../config/schema.js';
import { LoadError } from '../errors.js';
import { loadJob } from '../load/load-job.js';
import { type SyncJobOptions, type SyncJobResult, syncJob } from '../sync/sync-job.js';

/**
 * The daemon's sync job: a sync, then, when the config has `load:`, a load of what
 * it wrote (only after a sync that succeeded and was not stopped). A load that
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
  if (!config.load || result.summary.status !== 'succeeded' || options.signal.aborted) return result;
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
