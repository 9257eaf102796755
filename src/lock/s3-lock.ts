import { randomUUID } from 'node:crypto';
import { type Clock, isoNow, systemClock } from '../clock.js';
import { LockHeldError, StateConflictError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ObjectStore } from '../state/remote/object-store.js';
import {
  describeOwner,
  HEARTBEAT_MS,
  isStaleLock,
  type LockOwner,
  type LockSelf,
  parseOwner,
  thisProcess,
} from './lock-owner.js';
import type { RunLock } from './run-lock.js';

export interface S3LockOptions {
  store: ObjectStore;
  /** The lock object's key: `<state key>.lock`. */
  key: string;
  command: string;
  logger: Logger;
  self?: LockSelf;
  /** Its `now()` is compared with the lock object's Last-Modified. @default systemClock */
  clock?: Pick<Clock, 'now'>;
  /** @default 30000 */
  heartbeatMs?: number;
}

/** Acquisition ids this process holds now: such a lock is live even if it names our pid. */
const heldIds = new Set<string>();

/**
 * Takes the lock object beside a state in object storage. Every step is one
 * conditional write, so no read-then-write race exists:
 * - create with `If-None-Match: *`: exactly one starter creates it;
 * - when it exists: read it; a live owner → LockHeldError (exit 75) naming the
 *   holder and the lock's age; a stale one (isStaleLock on the age since the
 *   store's Last-Modified) is replaced with `If-Match` on the ETag just read, so
 *   of two starters taking over one stale lock exactly one succeeds and the other
 *   sees the winner's fresh lock;
 * - the lease is refreshed every 30 s with `If-Match` on our last ETag (each
 *   refresh writes a new `refreshed_at`, so the ETag changes); a failed condition
 *   means another run took the lock over while this one was stalled past the
 *   lease: the lock is lost and the state is never written by this run again;
 * - release deletes with `If-Match` on our ETag (never another run's lock).
 */
export async function acquireS3Lock(options: S3LockOptions): Promise<RunLock> {
  const { store, key, logger } = options;
  const self = options.self ?? thisProcess;
  const clock = options.clock ?? systemClock;
  const where = store.describe(key);
  const owner: LockOwner = {
    id: randomUUID(),
    pid: self.pid,
    host: self.host,
    command: options.command,
    started_at: isoNow(clock),
  };
  const body = () => Buffer.from(JSON.stringify({ ...owner, refreshed_at: isoNow(clock) }));
  for (let attempt = 0; attempt < 3; attempt++) {
    const created = await store.put(key, body(), { ifNoneMatch: '*' });
    if (created !== null) return holdS3Lock(options, where, owner, body, created);
    const current = await store.get(key);
    if (!current) continue; // released meanwhile
    const holder = parseOwner(current.body.toString('utf8'));
    const ageMs = clock.now() - current.lastModified.getTime();
    if (!isStaleLock(holder, ageMs, self, (id) => heldIds.has(id))) {
      throw new LockHeldError(`another run holds the state lock ${where} (${describeOwner(holder, ageMs)})`);
    }
    const taken = await store.put(key, body(), { ifMatch: current.etag });
    if (taken !== null) {
      logger.warn(
        { event: 'lock.takeover', lock: where, previous: holder, age_ms: ageMs },
        `took over the stale state lock ${where} (${describeOwner(holder, ageMs)})`,
      );
      return holdS3Lock(options, where, owner, body, taken);
    }
    // Another starter replaced it first: look again (its lock is fresh, so we stop there).
  }
  throw new LockHeldError(`could not take the state lock ${where}: another run keeps taking it`);
}

function holdS3Lock(
  options: S3LockOptions,
  where: string,
  owner: LockOwner,
  body: () => Buffer,
  firstEtag: string,
): RunLock {
  const { store, key, logger } = options;
  heldIds.add(owner.id);
  let etag = firstEtag;
  let lost = false;
  let released = false;
  let refreshing: Promise<void> = Promise.resolve();
  const refreshOnce = async () => {
    if (lost || released) return;
    try {
      const next = await store.put(key, body(), { ifMatch: etag });
      if (next === null) {
        lost = true;
        logger.error({ event: 'lock.lost', lock: where }, `the state lock ${where} was taken over by another run`);
      } else {
        etag = next;
      }
    } catch (error) {
      // A store outage: the lease survives one missed refresh; the next tick tries again.
      logger.warn({ event: 'lock.refresh_failed', lock: where, err: error }, 'could not refresh the state lock');
    }
  };
  const refresh = () => {
    refreshing = refreshing.then(refreshOnce);
    return refreshing;
  };
  const heartbeat = setInterval(() => void refresh(), options.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();
  return {
    where,
    get lost() {
      return lost;
    },
    async confirm() {
      await refresh();
      if (lost || released) {
        throw new StateConflictError(`the state lock ${where} is no longer held by this run: another run took it over`);
      }
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      heldIds.delete(owner.id);
      await refreshing;
      if (lost) return;
      try {
        if (!(await store.delete(key, { ifMatch: etag }))) {
          logger.warn(
            { event: 'lock.release', lock: where },
            'the state lock changed hands before release; left as is',
          );
        }
      } catch (error) {
        // Not fatal: the lock goes stale within the lease and the next run takes it over.
        logger.warn({ event: 'lock.release_failed', lock: where, err: error }, 'could not release the state lock');
      }
    },
  };
}
