import type { StateSettings } from '../config/state-location.js';
import type { Logger } from '../log.js';
import { openStateFromConfig, stateObjectStore } from '../state/state-from-config.js';
import type { StateHandle } from '../state/state-handle.js';
import { acquireLocalLock } from './local-lock.js';
import type { RunLock } from './run-lock.js';
import { acquireS3Lock } from './s3-lock.js';

/** A state opened for writing under its run lock. */
export interface LockedState {
  readonly lock: RunLock;
  readonly state: StateHandle;
  /** Closes the state (`save`: make it durable first), then releases the lock, whatever happens. */
  close(options?: { save?: boolean }): Promise<void>;
}

/**
 * Takes the run lock of the state `settings` name (a lock file beside a local state,
 * a lock object beside an `s3://` one), then opens the state for writing. Every
 * command that writes state (sync, apply, state reset) goes through here.
 */
export async function openLockedState(settings: StateSettings, command: string, logger: Logger): Promise<LockedState> {
  const remote = stateObjectStore(settings);
  let lock: RunLock;
  try {
    lock = remote
      ? await acquireS3Lock({ store: remote.store, key: `${remote.key}.lock`, command, logger })
      : acquireLocalLock(settings.path, command);
  } catch (error) {
    remote?.store.close();
    throw error;
  }
  let state: StateHandle;
  try {
    state = await openStateFromConfig(settings, { logger, confirmLock: () => lock.confirm(), remote });
  } catch (error) {
    await lock.release();
    remote?.store.close();
    throw error;
  }
  let closed = false;
  return {
    lock,
    state,
    async close(options) {
      if (closed) return;
      closed = true;
      try {
        await state.close(options);
      } finally {
        await lock.release();
        remote?.store.close();
      }
    },
  };
}
