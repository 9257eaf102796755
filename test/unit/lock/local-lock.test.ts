import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LockHeldError } from '../../../src/errors.js';
import { acquireLocalLock } from '../../../src/lock/local-lock.js';
import { LEASE_MS } from '../../../src/lock/lock-owner.js';

const dirs: string[] = [];
const dir = () => {
  const path = mkdtempSync(join(tmpdir(), 'hs-lock-'));
  dirs.push(path);
  return path;
};
afterAll(() => {
  for (const path of dirs) rmSync(path, { recursive: true, force: true });
});

describe('acquireLocalLock', () => {
  it('refuses a second holder with exit code 75 and frees the lock on release', () => {
    const state = join(dir(), 'state.sqlite');
    const lock = acquireLocalLock(state, 'sync');
    expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8')).pid).toBe(process.pid);
    let caught: unknown;
    try {
      acquireLocalLock(state, 'apply');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LockHeldError);
    expect((caught as LockHeldError).exitCode).toBe(75);
    expect((caught as Error).message).toMatch(/sync, pid \d+/);
    lock.release();
    expect(existsSync(`${state}.lock`)).toBe(false);
    acquireLocalLock(state, 'apply').release();
  });

  it('takes over a lock left by a dead process', async () => {
    const state = join(dir(), 'state.sqlite');
    const child = spawn(process.execPath, ['-e', '0']);
    const deadPid = child.pid!;
    await new Promise((resolve) => child.on('exit', resolve));
    const { hostname } = await import('node:os');
    writeFileSync(
      `${state}.lock`,
      JSON.stringify({ pid: deadPid, host: hostname(), command: 'sync', started_at: '2026-01-01T00:00:00Z' }),
    );
    const lock = acquireLocalLock(state, 'sync');
    expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });
});

describe('acquireLocalLock in containers', () => {
  it('takes over a lock not refreshed within the lease, even from another host', async () => {
    const { utimesSync } = await import('node:fs');
    const state = join(dir(), 'state.sqlite');
    writeFileSync(
      `${state}.lock`,
      JSON.stringify({ pid: 1, host: 'cronjob-pod-previous', command: 'sync', started_at: '2026-01-01T00:00:00Z' }),
    );
    // Fresh from another host: a live run elsewhere, respected.
    expect(() => acquireLocalLock(state, 'sync')).toThrow(LockHeldError);
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(`${state}.lock`, old, old);
    const lock = acquireLocalLock(state, 'sync');
    expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a lock naming our own pid that this process does not hold (a restarted container)', async () => {
    const { hostname } = await import('node:os');
    const state = join(dir(), 'state.sqlite');
    writeFileSync(
      `${state}.lock`,
      JSON.stringify({ pid: process.pid, host: hostname(), command: 'sync', started_at: '2026-01-01T00:00:00Z' }),
    );
    const lock = acquireLocalLock(state, 'sync');
    expect(() => acquireLocalLock(state, 'apply')).toThrow(LockHeldError);
    lock.release();
    expect(existsSync(`${state}.lock`)).toBe(false);
  });
});

describe('acquireLocalLock take-over, on a fake clock', () => {
  const other = (pid: number, host: string) => ({ pid, host, isAlive: () => true });
  const staleLock = (state: string, id: string) =>
    writeFileSync(`${state}.lock`, JSON.stringify({ id, pid: 1, host: 'pod-gone', command: 'sync', started_at: 'x' }));

  it('judges the lease by the clock: fresh for two minutes, stale after', () => {
    const state = join(dir(), 'state.sqlite');
    staleLock(state, 'a');
    const written = Date.now();
    const at = (ms: number) => () => written + ms;
    expect(() =>
      acquireLocalLock(state, 'sync', { self: other(5, 'pod-b'), clock: { now: at(LEASE_MS - 5_000) } }),
    ).toThrow(/another run holds the state lock .*\(sync, pid 1 on pod-gone, since x, refreshed 11\d s ago\)/);
    const lock = acquireLocalLock(state, 'sync', { self: other(5, 'pod-b'), clock: { now: at(LEASE_MS + 5_000) } });
    expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8'))).toMatchObject({ pid: 5, host: 'pod-b' });
    void lock.release();
  });

  it('of two starters meeting one stale lock at the same instant, exactly one takes it', () => {
    const state = join(dir(), 'state.sqlite');
    const late = Date.now;
    for (let round = 0; round < 3; round++) {
      staleLock(state, `old-${round}`);
      const old = new Date(Date.now() - 10 * 60_000);
      utimesSync(`${state}.lock`, old, old);
      let second: ReturnType<typeof acquireLocalLock> | undefined;
      let secondError: unknown;
      // The first starter has read the stale lock; the second runs its whole acquisition right then.
      const beforeTakeover = () => {
        if (second || secondError) return;
        try {
          second = acquireLocalLock(state, 'sync', { self: other(22, 'pod-2'), clock: { now: late } });
        } catch (error) {
          secondError = error;
        }
      };
      let first: ReturnType<typeof acquireLocalLock> | undefined;
      let firstError: unknown;
      try {
        first = acquireLocalLock(state, 'sync', { self: other(11, 'pod-1'), clock: { now: late }, beforeTakeover });
      } catch (error) {
        firstError = error;
      }
      expect([first, second].filter(Boolean)).toHaveLength(1);
      expect(firstError ?? secondError).toBeInstanceOf(LockHeldError);
      expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8')).pid).toBe(second ? 22 : 11);
      void (first ?? second)!.release();
      expect(existsSync(`${state}.lock`)).toBe(false);
    }
  });

  it('never takes a live lock that a take-over renamed over the stale one while it was being read', async () => {
    const { renameSync } = await import('node:fs');
    const state = join(dir(), 'state.sqlite');
    staleLock(state, 'old');
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(`${state}.lock`, old, old);
    // Another starter finishes its take-over between our open of the stale file and our read
    // of its body: the path now names a fresh lock of a live run.
    const live = { id: 'live', pid: 7, host: 'pod-a', command: 'sync', started_at: 'y' };
    const beforeReadBody = () => {
      writeFileSync(`${state}.lock.live.tmp`, JSON.stringify(live));
      renameSync(`${state}.lock.live.tmp`, `${state}.lock`);
    };
    expect(() => acquireLocalLock(state, 'sync', { self: other(5, 'pod-b'), beforeReadBody })).toThrow(
      /another run holds the state lock .*\(sync, pid 7 on pod-a, since y, refreshed \d s ago\)/,
    );
    expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8'))).toMatchObject({ id: 'live', pid: 7 });
  });

  it('leaves a lock whose owner refreshed it between the look and the take-over', () => {
    const state = join(dir(), 'state.sqlite');
    staleLock(state, 'slow');
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(`${state}.lock`, old, old);
    // An owner that missed its lease (a stalled disk, a paused container) refreshes it just then.
    const beforeTakeover = () => {
      const now = new Date();
      utimesSync(`${state}.lock`, now, now);
    };
    expect(() => acquireLocalLock(state, 'sync', { self: other(5, 'pod-b'), beforeTakeover })).toThrow(
      /another run holds the state lock .*\(sync, pid 1 on pod-gone, since x, refreshed \d s ago\)/,
    );
    expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8'))).toMatchObject({ id: 'slow', pid: 1 });
  });

  it('refuses while another starter holds the take-over marker, and steps past one abandoned for longer than the lease', async () => {
    const { readdirSync } = await import('node:fs');
    const root = dir();
    const state = join(root, 'state.sqlite');
    staleLock(state, 'old');
    const marker = `${state}.lock.takeover-old.1`;
    writeFileSync(marker, '999');
    const late = () => Date.now() + 10 * 60_000;
    // The clock says ten minutes later, so the marker written "now" is abandoned by then;
    // a marker fresh on that clock means a taker is at work.
    const freshNow = () => Date.now() + 1_000;
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(`${state}.lock`, old, old);
    expect(() => acquireLocalLock(state, 'sync', { self: other(5, 'pod-b'), clock: { now: freshNow } })).toThrow(
      /another run is taking over the stale state lock/,
    );
    const lock = acquireLocalLock(state, 'sync', { self: other(5, 'pod-b'), clock: { now: late } });
    expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8')).pid).toBe(5);
    await lock.release();
    expect(readdirSync(root)).toEqual([]);
  });
});
