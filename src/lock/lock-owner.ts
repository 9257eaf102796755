import { hostname } from 'node:os';

/** A live owner refreshes its lock this often. */
export const HEARTBEAT_MS = 30_000;
/** A lock not refreshed for this long is stale, wherever it came from. */
export const LEASE_MS = 120_000;

/** What a lock says about the run holding it; `id` is unique per acquisition. */
export interface LockOwner {
  id: string;
  pid: number;
  host: string;
  command: string;
  started_at: string;
}

/** This process as lock judgements see it (passed in so tests can play another process). */
export interface LockSelf {
  pid: number;
  host: string;
  /** Whether a pid on this host is a running process. */
  isAlive(pid: number): boolean;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const thisProcess: LockSelf = { pid: process.pid, host: hostname(), isAlive };

/**
 * Whether a lock another acquisition left is stale and may be taken over.
 *
 * Containers make pids and host names poor evidence: a restarted container often
 * runs as the same pid 1 on the same host, and a CronJob's next pod has a new
 * host name. So the lease decides first: a lock not refreshed for LEASE_MS is
 * stale whoever wrote it. Within the lease, a lock on this host is stale when
 * its pid is dead, or is our own pid but not an acquisition this process holds
 * (`heldHere`): a previous life of this pid. A fresh lock from another host is
 * respected.
 */
export function isStaleLock(
  owner: LockOwner | undefined,
  ageMs: number,
  self: LockSelf,
  heldHere: (id: string) => boolean,
): boolean {
  if (owner === undefined) return ageMs > LEASE_MS;
  if (ageMs > LEASE_MS) return true;
  if (owner.host !== self.host) return false;
  if (owner.pid === self.pid) return !heldHere(owner.id);
  return !self.isAlive(owner.pid);
}

/** "sync, pid 12 on host-a, since 2026-…, refreshed 14 s ago" for messages. */
export function describeOwner(owner: LockOwner | undefined, ageMs: number): string {
  const age = `refreshed ${Math.max(0, Math.round(ageMs / 1000))} s ago`;
  if (!owner) return `an unreadable lock, ${age}`;
  return `${owner.command}, pid ${owner.pid} on ${owner.host}, since ${owner.started_at}, ${age}`;
}

/** Parses a lock body; undefined when it is not one of ours (half-written, foreign). */
export function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string' || typeof value.command !== 'string')
      return undefined;
    return {
      id: String(value.id ?? ''),
      pid: value.pid,
      host: value.host,
      command: value.command,
      started_at: String(value.started_at ?? ''),
    };
  } catch {
    return undefined;
  }
}
