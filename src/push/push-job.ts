import { type ApiClient, apiClientFromConfig, type RequestQueue } from '../api/index.js';
import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { stateSettingsOf } from '../config/state-location.js';
import { openLockedState } from '../lock/locked-state.js';
import type { Logger } from '../log.js';
import { type DatabasePlace, explainStateError } from '../state/explain-state-error.js';
import { openStateFromConfig } from '../state/state-from-config.js';
import type { ResourceStore } from './mappings/resource-store.js';
import { createSqliteResourceStore } from './mappings/sqlite-resource-store.js';
import { type PushDeps, runApply } from './run-push.js';

export interface PushJobOptions {
  logger: Logger;
  /** Human output. @default stdout */
  out?: (text: string) => void;
  /** Time recorded with applied steps. @default systemClock */
  clock?: Pick<Clock, 'now'>;
  /** The process-wide request queue to share (docs/rate-limits.md). @default a queue of this job's own */
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
  // apply writes state (what it created, adopted, removed): under the run lock,
  // saved even when it fails part-way, since the writes it made are real. plan
  // only reads: without lockAs the state is opened read-only (nothing on disk is
  // created or changed; a state in object storage is a read-only copy).
  const locked = options.lockAs
    ? await openLockedState(stateSettingsOf(config), options.lockAs, options.logger)
    : undefined;
  let client: ApiClient | undefined;
  let place: DatabasePlace | undefined;
  let failed = false;
  try {
    const lane = config.account && { name: config.account.name, weight: config.account.share };
    client = apiClientFromConfig(config.source, options.logger, options.queue, lane);
    const state = locked?.state ?? (await openStateFromConfig(stateSettingsOf(config), { logger: options.logger }));
    place = state.place;
    try {
      return await fn({
        api: client.api,
        store: savingAfterWrites(createSqliteResourceStore(state.db.db), () => state.committed()),
        clock: options.clock ?? systemClock,
        out: options.out ?? ((text) => void process.stdout.write(text)),
        logger: options.logger,
        signal: options.signal,
      });
    } finally {
      if (!locked) await state.close();
    }
  } catch (error) {
    failed = true;
    // A SQLite error that escaped the resource store names neither the file nor the setting: say both.
    throw place ? explainStateError(error, place) : error;
  } finally {
    client?.close();
    await locked?.close({ save: true }).catch((error: unknown) => {
      if (!failed) throw error;
      options.logger.error({ event: 'state.save_failed', err: error }, 'could not save the state after a failed apply');
    });
  }
}

/**
 * Each mapping apply records stands for a write already made to the API: a state
 * kept in object storage uploads it soon after (in the background, coalesced),
 * not only at the end, so a killed apply forgets as little as possible of what
 * it created. A local state is durable at once and ignores the call.
 */
function savingAfterWrites(store: ResourceStore, committed: () => void): ResourceStore {
  return {
    get: (kind, key) => store.get(kind, key),
    list: (kind) => store.list(kind),
    put(record) {
      store.put(record);
      committed();
    },
    delete(kind, key) {
      store.delete(kind, key);
      committed();
    },
  };
}

/** `apply --auto-approve` as a job (the daemon's `schedule.push`), under the run lock. */
export function applyJob(config: Config, options: PushJobOptions & { prune?: boolean }): Promise<number> {
  return withPushDeps(config, { lockAs: 'apply (scheduled)', ...options }, (deps) =>
    runApply(config.push, deps, { autoApprove: true, prune: options.prune }),
  );
}

/**
 * Runs one edit of the push mappings (`state rm`, `state mv`) under the run
 * lock, saving the state only when the edit succeeded. Returns its message.
 */
export async function editPushStateJob(
  config: Config,
  logger: Logger,
  command: string,
  edit: (store: ResourceStore) => string,
): Promise<string> {
  const locked = await openLockedState(stateSettingsOf(config), command, logger);
  let message: string;
  try {
    message = edit(createSqliteResourceStore(locked.state.db.db));
  } catch (error) {
    await locked.close();
    throw error;
  }
  await locked.close({ save: true });
  return message;
}
