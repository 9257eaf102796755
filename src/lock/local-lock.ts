import { randomUUID } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { type Clock, isoNow, systemClock } from '../clock.js';
import { LockHeldError, StateConflictError, StateStorageError } from '../errors.js';
import { explainPathError } from '../path-problem.js';
import {
  describeOwner,
  HEARTBEAT_MS,
  isStaleLock,
  LEASE_MS,
  type LockOwner,
  type LockSelf,
  parseOwner,
  thisProcess,
} from './lock-owner.js';
import type { RunLock } from './run-lock.js';

export interface LocalLockOptions {
  self?: LockSelf;
  /** Its `now()` is compared with the lock file's mtime. @default systemClock */
  clock?: Pick<Clock, 'now'>;
  /** Called between reading a stale lock and taking it over (tests widen the race window here). */
  beforeTakeover?: () => void;
  /** Called between opening the lock file and reading its body, on the first look (tests swap the file here). */
  beforeReadBody?: () => void;
}

/** Acquisition ids this process holds now: such a lock is live even if it names our pid. */
const heldIds = new Set<string>();

interface SeenLock {
  owner: LockOwner | undefined;
  /** The owner's id, or the file's inode and mtime when its body is not one of ours. */
  identity: string;
  mtimeMs: number;
}

/**
 * The lock file as one file: its mtime and its body are read through one descriptor. Read by
 * path twice, a take-over renaming a fresh lock over a stale one in between would pair the stale
 * file's old mtime with the new owner's body, and a live lock would look stale.
 */
function readLock(path: string, beforeReadBody?: () => void): SeenLock | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    beforeReadBody?.();
    const owner = parseOwner(readFileSync(fd, 'utf8'));
    return { owner, identity: owner?.id || `ino${stat.ino}-${stat.mtimeMs}`, mtimeMs: stat.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** Up to this many take-over markers per stale lock; a marker outlives its taker only if the taker died mid-way. */
const MARKER_LEVELS = 5;

/**
 * Takes `<state>.lock` beside a local state file so that two runs (sync, apply,
 * state reset) never share one state at once. A live owner → LockHeldError
 * (exit 75, "try again later" for schedulers).
 *
 * - Creation is atomic with its content: the owner is written to a private
 *   temporary file that is then hard-linked to the lock path (link fails when
 *   the path exists), so nobody ever reads a half-written lock.
 * - A stale lock (see isStaleLock: lease of 2 minutes refreshed every 30 s,
 *   dead pid, our own pid) is taken over by exactly one starter: each taker must
 *   first create `<lock>.takeover-<stale id>.<n>` exclusively (O_EXCL), then check
 *   the lock still is the stale one (same acquisition, same mtime: not refreshed
 *   since), then rename its own lock over it. Two
 *   starters meeting one stale lock race for the marker; the loser exits 75. A
 *   marker older than the lease belongs to a taker that died mid-way: the next
 *   level's marker is used instead, so a crash there never wedges the lock.
 */
export function acquireLocalLock(statePath: string, command: string, options: LocalLockOptions = {}): RunLock {
  const self = options.self ?? thisProcess;
  const clock = options.clock ?? systemClock;
  const path = `${statePath}.lock`;
  const owner: LockOwner = {
    id: randomUUID(),
    pid: self.pid,
    host: self.host,
    command,
    started_at: isoNow(clock),
  };
  const tmp = `${path}.${owner.id}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(tmp, JSON.stringify(owner), { mode: 0o600 });
  } catch (error) {
    // The first write beside the state: where a read-only mount or a file in the way shows first.
    throw new StateStorageError(
      `the state lock ${path} (beside state.path ${statePath}) cannot be created: ${explainPathError(error, dirname(path), true)}`,
      { cause: error },
    );
  }
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(tmp, path);
        return holdLocalLock(path, owner, clock);
      } catch (error) {
        if (code(error) !== 'EEXIST') throw error;
      }
      const seen = readLock(path, attempt === 0 ? options.beforeReadBody : undefined);
      if (!seen) continue; // released meanwhile
      const ageMs = clock.now() - seen.mtimeMs;
      if (!isStaleLock(seen.owner, ageMs, self, (id) => heldIds.has(id))) {
        throw new LockHeldError(`another run holds the state lock ${path} (${describeOwner(seen.owner, ageMs)})`);
      }
      options.beforeTakeover?.();
      if (takeOver(path, tmp, seen, clock)) return holdLocalLock(path, owner, clock);
    }
    throw new LockHeldError(`could not take the state lock ${path}: another run keeps taking it`);
  } finally {
    unlinkQuietly(tmp);
  }
}

/** One attempt to replace the stale lock `seen` with ours; false when it changed meanwhile. */
function takeOver(path: string, tmp: string, seen: SeenLock, clock: Pick<Clock, 'now'>): boolean {
  const markerBase = `${path}.takeover-${seen.identity}`;
  for (let level = 1; level <= MARKER_LEVELS; level++) {
    const marker = `${markerBase}.${level}`;
    try {
      writeFileSync(marker, String(process.pid), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if (code(error) !== 'EEXIST') throw error;
      let markerAge = Number.POSITIVE_INFINITY;
      try {
        markerAge = clock.now() - statSync(marker).mtimeMs;
      } catch {
        // removed by the taker that finished: the lock has changed, let the caller look again
        return false;
      }
      if (markerAge <= LEASE_MS) {
        throw new LockHeldError(`another run is taking over the stale state lock ${path} right now`);
      }
      continue;
    }
    // We own this marker: nobody else can be between here and the rename for this stale lock.
    // Still the same acquisition, and not refreshed since (a refresh means its owner is alive).
    const now = readLock(path);
    if (now?.identity !== seen.identity || now.mtimeMs !== seen.mtimeMs) {
      unlinkQuietly(marker);
      return false;
    }
    renameSync(tmp, path);
    for (let l = 1; l <= level; l++) unlinkQuietly(`${markerBase}.${l}`);
    return true;
  }
  throw new LockHeldError(`could not take over the stale state lock ${path}: too many abandoned take-overs`);
}

function holdLocalLock(path: string, owner: LockOwner, clock: Pick<Clock, 'now'>): RunLock {
  heldIds.add(owner.id);
  let lost = false;
  const ours = () => readLock(path)?.owner?.id === owner.id;
  const heartbeat = setInterval(() => {
    if (!ours()) {
      lost = true;
      clearInterval(heartbeat);
      return;
    }
    const t = new Date(clock.now());
    try {
      utimesSync(path, t, t);
    } catch {
      // the lock file vanished (removed by hand): nothing to refresh
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(heartbeat);
    heldIds.delete(owner.id);
    if (ours()) unlinkQuietly(path);
    process.off('exit', release);
  };
  process.on('exit', release);
  return {
    where: path,
    get lost() {
      return lost;
    },
    async confirm() {
      if (!lost && ours()) return;
      lost = true;
      throw new StateConflictError(`the state lock ${path} is no longer held by this run`);
    },
    async release() {
      release();
    },
  };
}
