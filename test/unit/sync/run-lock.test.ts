import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockHeldError } from '../../../src/errors.js';
import { acquireRunLock } from '../../../src/sync/run-lock.js';

const dir = () => mkdtempSync(join(tmpdir(), 'hs-lock-'));

describe('acquireRunLock', () => {
  it('refuses a second holder with exit code 75 and frees the lock on release', () => {
    const state = join(dir(), 'state.sqlite');
    const lock = acquireRunLock(state, 'sync');
    expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8')).pid).toBe(process.pid);
    let caught: unknown;
    try {
      acquireRunLock(state, 'apply');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LockHeldError);
    expect((caught as LockHeldError).exitCode).toBe(75);
    expect((caught as Error).message).toMatch(/sync, pid \d+/);
    lock.release();
    expect(existsSync(`${state}.lock`)).toBe(false);
    acquireRunLock(state, 'apply').release();
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
    const lock = acquireRunLock(state, 'sync');
    expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });
});

describe('acquireRunLock in containers', () => {
  it('takes over a lock not refreshed within the lease, even from another host', async () => {
    const { utimesSync } = await import('node:fs');
    const state = join(dir(), 'state.sqlite');
    writeFileSync(
      `${state}.lock`,
      JSON.stringify({ pid: 1, host: 'cronjob-pod-previous', command: 'sync', started_at: '2026-01-01T00:00:00Z' }),
    );
    // Fresh from another host: a live run elsewhere, respected.
    expect(() => acquireRunLock(state, 'sync')).toThrow(LockHeldError);
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(`${state}.lock`, old, old);
    const lock = acquireRunLock(state, 'sync');
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
    const lock = acquireRunLock(state, 'sync');
    expect(() => acquireRunLock(state, 'apply')).toThrow(LockHeldError);
    lock.release();
    expect(existsSync(`${state}.lock`)).toBe(false);
  });
});
