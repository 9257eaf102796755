import { apiClientFromConfig } from '../api/client-from-config.js';
import type { ApiClient } from '../api/create-api-client.js';
import type { RequestQueue } from '../api/request-queue.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import { openStateDb } from '../state/database.js';
import { acquireRunLock } from '../sync/run-lock.js';
import { type PushDeps, runApply } from './run-push.js';
import { createSqliteResourceStore } from './sqlite-resource-store.js';

export interface PushJobOptions {
  logger: Logger;
  /** Human output. @default stdout */
  out?: (text: string) => void;
  now?: () => Date;
  /** The process-wide request queue to share (docs/operations.md). @default a queue of this job's own */
  queue?: RequestQueue;
  /** Stops an apply between steps (daemon shutdown). */
  signal?: AbortSignal;
  /** Take the run lock beside the state under this command name (every command that writes state). */
  lockAs?: string;
}

/**
 * The composition root of `plan` and `apply`: builds the API client (sharing the
 * configured rate budget) and the state store, hands them to `fn`, and closes
 * both whatever happens. Building them makes no request, so static validation
 * inside `fn` still runs before any API call.
 */
export async function withPushDeps<T>(
  config: Config,
  options: PushJobOptions,
  fn: (deps: PushDeps) => Promise<T>,
): Promise<T> {
  const lock = options.lockAs ? acquireRunLock(config.state.path, options.lockAs) : undefined;
  let client: ApiClient | undefined;
  try {
    client = apiClientFromConfig(config.source, options.logger, options.queue);
    const state = openStateDb(config.state.path);
    try {
      return await fn({
        api: client.api,
        store: createSqliteResourceStore(state.db),
        now: options.now ?? (() => new Date()),
        out: options.out ?? ((text) => void process.stdout.write(text)),
        logger: options.logger,
        signal: options.signal,
      });
    } finally {
      state.close();
    }
  } finally {
    client?.close();
    lock?.release();
  }
}

/** `apply --auto-approve` as a job (the daemon's `schedule.push`), under the run lock. */
export function applyJob(config: Config, options: PushJobOptions & { prune?: boolean }): Promise<number> {
  return withPushDeps(config, { lockAs: 'apply (scheduled)', ...options }, (deps) =>
    runApply(config.push, deps, { autoApprove: true, prune: options.prune }),
  );
}
