import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { openStateDb, type StateDb, statePlace } from './database.js';
import type { DatabasePlace } from './explain-state-error.js';
import { readStateDb, stateAbsent } from './read-state-db.js';
import { type CachedCopy, copyDatabase, DiskCopyCache, keepCopy, takeCachedCopy } from './remote/copy-cache.js';
import type { ObjectStore } from './remote/object-store.js';
import { type BaseLimits, StateReplica } from './remote/state-replica.js';
import { StateUploader } from './remote/state-uploader.js';

/**
 * An open state, wherever it lives. Commands read and write `db`; a run that
 * writes tells the handle when a checkpoint committed and when the state must be
 * durable before it goes on (before a manifest is written, at the end).
 */
export interface StateHandle {
  readonly db: StateDb;
  /** `state.path` as configured, for messages. */
  readonly location: string;
  /** How errors name this state (see explainStateError): its location, `state.path`, the recovery. */
  readonly place: DatabasePlace;
  /** A directory private to this run (0700) for spool files, when the state is not local. */
  readonly workDir: string | undefined;
  /** There was no state yet: `db` is an empty one (a read-only open creates nothing). */
  readonly absent?: boolean;
  /** A checkpoint committed. Throws when the state can no longer be saved (another run owns it). */
  committed(): void;
  /** Makes everything committed so far durable where the state lives. */
  flush(): Promise<void>;
  /** Closes the database; `save` makes it durable first (a remote state: the final upload). */
  close(options?: { save?: boolean }): Promise<void>;
}

/** A state in object storage, as its errors name it: the object, and how to start again from it. */
function remotePlace(url: string): DatabasePlace {
  return {
    what: 'state database',
    path: url,
    setting: 'state.path',
    recovery:
      'The output already written is not affected. To start again: restore an earlier version of the object ' +
      '(bucket versioning) or delete it, then run sync: from an empty state the next run writes every row again ' +
      '(duplicates merge on primary keys)',
  };
}

/** A state file on a local (or mounted) disk: every commit is durable as it happens. */
export function openLocalState(path: string): StateHandle {
  return localHandle(path, openStateDb(path));
}

/** A local state opened for reading only (read-state-db.ts): nothing on disk is created or changed. */
export function readLocalState(path: string): StateHandle {
  const absent = stateAbsent(path);
  return localHandle(path, readStateDb(path), absent);
}

function localHandle(path: string, db: StateDb, absent?: StateHandle['absent']): StateHandle {
  return {
    db,
    location: path,
    place: statePlace(path),
    workDir: undefined,
    ...(absent ? { absent } : {}),
    committed: () => undefined,
    flush: async () => undefined,
    close: async () => db.close(),
  };
}

export interface RemoteStateOptions {
  store: ObjectStore;
  key: string;
  logger: Logger;
  /** The run lock's confirm(); a read-only open passes none and never uploads. */
  confirmLock?: () => Promise<void>;
  /** When an upload writes a new base (tests). @default see StateReplica */
  limits?: Partial<BaseLimits>;
  /**
   * `state.cache_dir`: where a writable open works and keeps its copy for the
   * next run of any process (copy-cache.ts). @default the copy is kept for the
   * next run of this process only, and the work is done under $TMPDIR
   */
  cacheDir?: string;
}

/**
 * A state kept in object storage (remote/state-replica.ts): rebuilt in a fresh
 * private directory (0700, the copy 0600) from its base and change files; a
 * missing head is a fresh state. With `confirmLock` the handle uploads what
 * each commit changed (see StateUploader), and a run that uploaded everything
 * leaves its copy to the next run of the same process (the daemon), or with
 * `cacheDir` of any process that mounts that directory, which downloads nothing
 * while the head is unchanged. Without `confirmLock` it is read-only and its
 * copy is dropped. Otherwise the directory is removed on close.
 */
/** The copy kept in `state.cache_dir`; a failure to keep it costs the next run a download, never this run. */
function keepOnDisk(disk: DiskCopyCache, copy: CachedCopy, logger: Logger): void {
  try {
    disk.keep(copy);
  } catch (error) {
    logger.warn({ event: 'state.cache_failed', err: error }, 'could not keep the state copy in state.cache_dir');
    rmSync(copy.dir, { recursive: true, force: true });
  }
}

export async function openRemoteState(options: RemoteStateOptions): Promise<StateHandle> {
  const { store, key, logger, confirmLock } = options;
  const url = store.describe(key);
  const place = remotePlace(url);
  const disk = confirmLock && options.cacheDir ? new DiskCopyCache(options.cacheDir, url) : undefined;
  const cached = confirmLock ? (disk ? disk.take() : takeCachedCopy(url)) : undefined;
  const workDir = cached?.dir ?? disk?.workDir() ?? mkdtempSync(join(tmpdir(), 'helpdesk-sync-state-'));
  const replica = new StateReplica({
    store,
    key,
    workDir,
    logger,
    limits: options.limits,
    recovery: place.recovery ?? '',
  });
  let db: StateDb;
  let absent = false;
  try {
    const localPath = copyDatabase(workDir);
    const found = await replica.download(localPath, cached);
    absent = found === 'absent';
    logger.debug(
      { event: 'state.downloaded', state: url, found },
      found === 'absent' ? 'no state yet' : 'state downloaded',
    );
    db = openStateDb(localPath, { place });
  } catch (error) {
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }
  if (confirmLock) replica.attach(db);
  const uploader = confirmLock ? new StateUploader({ push: () => replica.push(), confirmLock, logger }) : undefined;
  let closed = false;
  return {
    db,
    location: url,
    place,
    workDir,
    ...(absent ? { absent } : {}),
    committed: () => uploader?.request(),
    flush: async () => uploader?.flush(),
    async close({ save = false } = {}) {
      if (closed) return;
      closed = true;
      let saved = false;
      try {
        if (save && uploader) await uploader.flush();
        saved = save;
      } finally {
        // An upload still reading the database (not saving, or after a failure) ends first.
        await uploader?.idle();
        const etag = replica.etag;
        const keep = saved && uploader !== undefined && replica.clean && etag !== undefined;
        db.close();
        if (keep && etag !== undefined) {
          const copy = { dir: workDir, etag, head: replica.head };
          if (disk) keepOnDisk(disk, copy, logger);
          else keepCopy(url, copy);
        } else {
          rmSync(workDir, { recursive: true, force: true });
        }
      }
    },
  };
}
