import { type StateSettings, stateLocation } from '../config/state-location.js';
import type { Logger } from '../log.js';
import type { ObjectStore } from './remote/object-store.js';
import { createS3ObjectStore } from './remote/s3-object-store.js';
import { openLocalState, openRemoteState, readLocalState, type StateHandle } from './state-handle.js';

/** The object store holding an `s3://` state (and its lock); undefined for a local state. */
export function stateObjectStore(settings: StateSettings): { store: ObjectStore; key: string } | undefined {
  const location = stateLocation(settings.path);
  if (location.kind === 'local') return undefined;
  return { store: createS3ObjectStore({ bucket: location.bucket, ...settings.s3 }), key: location.key };
}

/**
 * Opens the state `settings` name (stateSettingsOf: the config's slice). `confirmLock`
 * (the run lock's) makes it writable. Without it the state is only read: a remote
 * state is a copy in a temporary folder, a local one is opened without creating or
 * changing anything on disk (read-state-db.ts), and a state that does not exist
 * yet reads as an empty one (`absent`).
 */
export async function openStateFromConfig(
  settings: StateSettings,
  options: { logger: Logger; confirmLock?: () => Promise<void>; remote?: { store: ObjectStore; key: string } },
): Promise<StateHandle> {
  const remote = options.remote ?? stateObjectStore(settings);
  if (!remote) return options.confirmLock ? openLocalState(settings.path) : readLocalState(settings.path);
  const own = options.remote === undefined;
  let handle: StateHandle;
  try {
    handle = await openRemoteState({
      ...remote,
      logger: options.logger,
      confirmLock: options.confirmLock,
      limits: { maxLogFiles: settings.maxChangeFiles },
      cacheDir: settings.cacheDir,
    });
  } catch (error) {
    if (own) remote.store.close();
    throw error;
  }
  if (!own) return handle;
  return {
    ...handle,
    committed: () => handle.committed(),
    flush: () => handle.flush(),
    close: (closeOptions) => handle.close(closeOptions).finally(() => remote.store.close()),
  };
}
