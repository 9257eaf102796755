import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
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
 */
export function acquireRunLock(statePath: string, command: string): RunLock {
  const path = `${statePath}.lock`;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      const owner: LockOwner = { pid: process.pid, host: hostname(), command, started_at: new Date().toISOString() };
      writeSync(fd, JSON.stringify(owner));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        const current = readOwner(path);
        if (current?.pid === process.pid) rmSync(path, { force: true });
        process.off('exit', release);
      };
      process.on('exit', release);
      return { path, release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readOwner(path);
      const stale = owner === undefined || (owner.host === hostname() && !isAlive(owner.pid));
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
