import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { LockHeldError } from '../errors.js';

export interface RunLock {
  readonly path: string;
  release(): void;
}

interface LockOwner {
  pid: number;
  host: string;
  command: string;
  started_at: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A live owner touches its lock this often; a lock untouched for LEASE_MS is stale wherever it came from. */
const HEARTBEAT_MS = 30_000;
const LEASE_MS = 120_000;

/** Locks this process holds now: our own pid in a lock we do not hold is a previous life of this pid. */
const held = new Set<string>();

function readOwner(path: string): LockOwner | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

/**
 * Takes the lock file beside the state database so that two runs (sync, apply,
 * state reset) never share one state at once. The lock is an exclusively created
 * file holding the owner's pid; a lock left by a dead process on this host (a
 * crash, kill -9) is stale and taken over, so a crash never blocks the next run.
 * A live owner → LockHeldError (exit 75, "try again later" for schedulers).
 *
 * Containers make pids and host names poor evidence: a restarted container often
 * runs as the same pid 1 on the same host, and a CronJob's next pod has a new
 * host name. So the owner refreshes the lock's mtime every 30 s (a lease), and a
 * lock not refreshed for 2 minutes is stale whoever wrote it; a lock naming our
 * own pid that this process does not hold is stale too.
 */
function isStale(path: string, owner: LockOwner): boolean {
  let touched: number;
  try {
    touched = statSync(path).mtimeMs;
  } catch {
    return true;
  }
  if (Date.now() - touched > LEASE_MS) return true;
  if (owner.host !== hostname()) return false;
  if (owner.pid === process.pid) return !held.has(path);
  return !isAlive(owner.pid);
}

export function acquireRunLock(statePath: string, command: string): RunLock {
  const path = `${statePath}.lock`;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      const owner: LockOwner = { pid: process.pid, host: hostname(), command, started_at: new Date().toISOString() };
      writeSync(fd, JSON.stringify(owner));
      closeSync(fd);
      held.add(path);
      const heartbeat = setInterval(() => {
        const t = new Date();
        try {
          utimesSync(path, t, t);
        } catch {
          // the lock file vanished (reset by hand): nothing to refresh
        }
      }, HEARTBEAT_MS);
      heartbeat.unref();
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        clearInterval(heartbeat);
        held.delete(path);
        const current = readOwner(path);
        if (current?.pid === process.pid) rmSync(path, { force: true });
        process.off('exit', release);
      };
      process.on('exit', release);
      return { path, release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readOwner(path);
      const stale = owner === undefined || isStale(path, owner);
      if (!stale) {
        throw new LockHeldError(
          `another run holds the state lock ${path} (${owner.command}, pid ${owner.pid} on ${owner.host}, since ${owner.started_at})`,
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new LockHeldError(`could not take the state lock ${path}: another run keeps taking it`);
}
