import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Clock, systemClock } from '../../clock.js';
import { StateConflictError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { fileSha256 } from '../../output/file-sha256.js';
import type { StateDb } from '../database.js';
import type { ObjectStore } from './object-store.js';
import { rebuildState } from './rebuild-state.js';
import {
  baseKey,
  type LogEntry,
  logKey,
  newGeneration,
  newWriterId,
  objectsOf,
  type StateHead,
  serializeHead,
} from './state-head.js';
import { type ChangeTracker, trackChanges } from './track-changes.js';

/** When the next upload writes a new base instead of one more change file. */
export interface BaseLimits {
  /** Change files after one base. @default 256 */
  maxLogFiles: number;
  /** The change files' bytes may grow to the base's size, and at least to this. @default 8 MiB */
  minLogBytes: number;
}

const DEFAULT_LIMITS: BaseLimits = { maxLogFiles: 256, minLogBytes: 8 * 1024 * 1024 };

export interface StateReplicaOptions {
  store: ObjectStore;
  key: string;
  /** Private directory (0700) for what is downloaded and uploaded. */
  workDir: string;
  logger: Logger;
  clock?: Pick<Clock, 'now'>;
  limits?: Partial<BaseLimits>;
  /** How a damaged or missing part is explained: what to do about it. */
  recovery: string;
}

/** Page cache of `VACUUM INTO` (KiB, as `PRAGMA cache_size` takes it negative). */
const VACUUM_CACHE_KIB = 2048;

/**
 * A compact copy of the state at `path`. VACUUM INTO gives the copy a page
 * cache as large as the state's own (16 MiB) and fills both as it reads every
 * page: for the second or so it runs, both are held to 2 MiB, then the
 * state's is given back its size (it refills from the OS's file cache).
 */
function vacuumInto(db: StateDb, path: string): void {
  const cacheSize = db.db.pragma('cache_size', { simple: true }) as number;
  db.db.pragma(`cache_size = -${VACUUM_CACHE_KIB}`);
  try {
    db.db.prepare('VACUUM main INTO ?').run(path);
  } finally {
    db.db.pragma(`cache_size = ${cacheSize}`);
  }
}

/** What download() found. */
export type DownloadOutcome = 'absent' | 'found' | 'unchanged';

/**
 * A state kept in object storage as a base plus change files under a head
 * (state-head.ts), and the local copy a run works on. download() rebuilds the
 * copy; push() sends what changed since the last push as one change file, or
 * a whole new base when the change files have outgrown the last one, then
 * writes the head with `If-Match`: a run never overwrites a head another run
 * wrote after it read it (StateConflictError instead). A state written as one
 * SQLite object by earlier versions is read as a base and replaced by a head at
 * the first push.
 */
export class StateReplica {
  #head: StateHead | undefined;
  #etag: string | undefined;
  #needsBase = true;
  #tracker: ChangeTracker | undefined;
  #db: StateDb | undefined;
  #pushes = 0;
  readonly #writer = newWriterId();
  readonly #limits: BaseLimits;
  readonly #clock: Pick<Clock, 'now'>;

  constructor(private readonly o: StateReplicaOptions) {
    this.#limits = { ...DEFAULT_LIMITS, ...o.limits };
    this.#clock = o.clock ?? systemClock;
  }

  get url(): string {
    return this.o.store.describe(this.o.key);
  }

  /** The head's ETag as last read or written: what the next write is conditional on. */
  get etag(): string | undefined {
    return this.#etag;
  }

  get head(): StateHead | undefined {
    return this.#head;
  }

  /**
   * Rebuilds the state at `localPath` (rebuild-state.ts). With `cached` (a
   * copy of the head at `cached.etag` already at `localPath`), nothing is
   * copied while the head is unchanged.
   */
  async download(localPath: string, cached?: { etag: string; head: StateHead | undefined }): Promise<DownloadOutcome> {
    const { store, key, workDir, recovery } = this.o;
    const rebuilt = await rebuildState({ store, key, workDir, recovery }, localPath, cached);
    if (rebuilt.outcome === 'absent') {
      this.#etag = undefined;
      this.#head = undefined;
      return 'absent';
    }
    this.#etag = rebuilt.etag;
    this.#head = rebuilt.head;
    // A state written as one object by an earlier version is uploaded whole at the first push.
    this.#needsBase = rebuilt.head === undefined;
    return rebuilt.outcome;
  }

  /**
   * The opened copy (migrated): its changes are tracked from here on. A copy
   * whose schema is not the head's (a migration ran) is uploaded whole next.
   */
  attach(db: StateDb): void {
    this.#db = db;
    this.#tracker = trackChanges(db.db);
    if (this.#head?.schema !== db.version) this.#needsBase = true;
  }

  /** Everything committed locally is in object storage (nothing changed since the last push). */
  get clean(): boolean {
    return !this.#needsBase && this.#tracker !== undefined && this.#tracker.mark() === 0;
  }

  /** Uploads what changed since the last push; nothing when nothing did. */
  async push(): Promise<void> {
    const db = this.#db;
    const tracker = this.#tracker;
    if (!db || !tracker) throw new Error('StateReplica.push before attach');
    const head = this.#head;
    if (this.#needsBase || !head || this.#logFull(head)) return this.#pushBase(db, tracker);
    const path = join(this.o.workDir, `push-${++this.#pushes}.sqlite`);
    try {
      const changes = tracker.writeChanges(path);
      if (!changes) return;
      const entry: LogEntry = {
        seq: (head.log.at(-1)?.seq ?? 0) + 1,
        bytes: statSync(path).size,
        sha256: await fileSha256(path),
      };
      await this.o.store.upload(logKey(this.o.key, head.generation, entry), path);
      await this.#writeHead({ ...head, log: [...head.log, entry] });
      tracker.forget(changes.upTo);
      this.o.logger.debug(
        { event: 'state.uploaded', state: this.url, kind: 'changes', rows: changes.rows, bytes: entry.bytes },
        'state changes uploaded',
      );
    } finally {
      rmSync(path, { force: true });
    }
  }

  #logFull(head: StateHead): boolean {
    const bytes = head.log.reduce((sum, e) => sum + e.bytes, 0);
    return head.log.length >= this.#limits.maxLogFiles || bytes >= Math.max(head.base.bytes, this.#limits.minLogBytes);
  }

  async #pushBase(db: StateDb, tracker: ChangeTracker): Promise<void> {
    const path = join(this.o.workDir, `base-${++this.#pushes}.sqlite`);
    try {
      // VACUUM INTO: one consistent, compact copy as of this instant (no write runs meanwhile).
      const upTo = tracker.mark();
      vacuumInto(db, path);
      const previous = this.#head;
      const head: StateHead = {
        format: 'helpdesk-sync-state/2',
        generation: newGeneration(new Date(this.#clock.now())),
        schema: db.version,
        base: { bytes: statSync(path).size, sha256: await fileSha256(path) },
        log: [],
        writer: this.#writer,
        written_at: '',
      };
      await this.o.store.upload(baseKey(this.o.key, head), path);
      await this.#writeHead(head);
      tracker.forget(upTo);
      this.#needsBase = false;
      this.o.logger.debug(
        { event: 'state.uploaded', state: this.url, kind: 'base', bytes: head.base.bytes },
        'state uploaded whole (new base)',
      );
      if (previous) await this.#dropGeneration(previous);
    } finally {
      rmSync(path, { force: true });
    }
  }

  /** A replaced generation's objects: removed, best effort (leftovers are never read again). */
  async #dropGeneration(old: StateHead): Promise<void> {
    for (const objectKey of objectsOf(this.o.key, old)) {
      await this.o.store.delete(objectKey).catch((error: unknown) => {
        this.o.logger.warn(
          { event: 'state.cleanup_failed', object: objectKey, err: error },
          'could not delete an old state file',
        );
      });
    }
  }

  /**
   * Writes the head, conditional on the last one this run saw. A failed
   * condition is another run's write, unless the head now holds these very
   * bytes (a write of ours that landed although its answer was lost).
   */
  async #writeHead(next: StateHead): Promise<void> {
    const head = { ...next, writer: this.#writer, written_at: new Date(this.#clock.now()).toISOString() };
    const body = serializeHead(head);
    const condition = this.#etag === undefined ? ({ ifNoneMatch: '*' } as const) : { ifMatch: this.#etag };
    let etag = await this.o.store.put(this.o.key, body, condition);
    if (etag === null) {
      const now = await this.o.store.get(this.o.key);
      if (!now?.body.equals(body)) {
        throw new StateConflictError(
          `the state ${this.url} was written by another run since this run ${this.#etag === undefined ? 'found it absent' : 'read it'}; this run stops without overwriting it`,
        );
      }
      etag = now.etag;
    }
    this.#etag = etag;
    this.#head = head;
  }
}
