import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LockHeldError, StateConflictError } from '../../../src/errors.js';
import { HEARTBEAT_MS, LEASE_MS, type LockSelf } from '../../../src/lock/lock-owner.js';
import { acquireS3Lock } from '../../../src/lock/s3-lock.js';
import { silentLogger } from '../../../src/log.js';
import { MemoryObjectStore } from './memory-object-store.js';

const KEY = 'hs/state.sqlite.lock';
const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);
let clock = T0;
const now = () => clock;
const alive = new Set<number>([100, 200]);
const onHost = (pid: number, host = 'pod-a'): LockSelf => ({ pid, host, isAlive: (p) => alive.has(p) });

let store: MemoryObjectStore;
beforeEach(() => {
  clock = T0;
  store = new MemoryObjectStore({ now });
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
});
afterEach(() => {
  vi.useRealTimers();
});

const acquire = (self: LockSelf, command = 'sync') =>
  acquireS3Lock({ store, key: KEY, command, logger: silentLogger(), self, clock: { now } });

const holder = () => JSON.parse(store.objects.get(KEY)!.body.toString('utf8')) as { pid: number; host: string };

describe('acquireS3Lock', () => {
  it('creates the lock once; a second starter gets LockHeldError (75) naming holder and age; release frees it', async () => {
    const first = await acquire(onHost(100));
    expect(holder()).toMatchObject({ pid: 100, host: 'pod-a', command: 'sync' });
    clock += 20_000;
    const refused = await acquire(onHost(7, 'pod-b'), 'apply').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LockHeldError);
    expect((refused as LockHeldError).exitCode).toBe(75);
    expect((refused as Error).message).toBe(
      'another run holds the state lock s3://memory/hs/state.sqlite.lock (sync, pid 100 on pod-a, since 2026-01-05T12:00:00.000Z, refreshed 20 s ago)',
    );
    await first.release();
    expect(store.objects.has(KEY)).toBe(false);
    await (await acquire(onHost(7, 'pod-b'))).release();
  });

  it('keeps a lock refreshed within the lease, and takes over one not refreshed for longer', async () => {
    await acquire(onHost(100));
    for (let i = 0; i < 8; i++) {
      clock += HEARTBEAT_MS;
      await vi.advanceTimersByTimeAsync(HEARTBEAT_MS);
    }
    // Four minutes later, still refreshed: another host must wait.
    await expect(acquire(onHost(7, 'pod-b'))).rejects.toBeInstanceOf(LockHeldError);
    // The holder stops refreshing (frozen, or killed on a node that vanished).
    const stalled = store.objects.get(KEY)!;
    store.objects.set(KEY, { ...stalled, lastModified: new Date(clock) });
    vi.clearAllTimers();
    clock += LEASE_MS;
    await expect(acquire(onHost(7, 'pod-b'))).rejects.toBeInstanceOf(LockHeldError);
    clock += 1;
    const taker = await acquire(onHost(7, 'pod-b'));
    expect(holder()).toMatchObject({ pid: 7, host: 'pod-b' });
    await taker.release();
  });

  it('takes over at once a lock of a dead pid or of our own pid on this host, never a live one', async () => {
    store.write(KEY, JSON.stringify({ id: 'x', pid: 300, host: 'pod-a', command: 'sync', started_at: 'x' }));
    const fromDead = await acquire(onHost(100));
    await fromDead.release();
    store.write(KEY, JSON.stringify({ id: 'y', pid: 100, host: 'pod-a', command: 'sync', started_at: 'x' }));
    const restarted = await acquire(onHost(100));
    // Held by this process now: the same pid asking again is refused.
    await expect(acquire(onHost(100), 'apply')).rejects.toBeInstanceOf(LockHeldError);
    await restarted.release();
    store.write(KEY, JSON.stringify({ id: 'z', pid: 200, host: 'pod-a', command: 'sync', started_at: 'x' }));
    await expect(acquire(onHost(100))).rejects.toBeInstanceOf(LockHeldError);
  });

  it('lets exactly one of several starters take over one stale lock at the same instant', async () => {
    for (let round = 0; round < 5; round++) {
      store.write(
        KEY,
        JSON.stringify({ id: `old${round}`, pid: 1, host: 'gone', command: 'sync', started_at: 'x' }),
        new Date(clock - 10 * 60_000),
      );
      const results = await Promise.allSettled([1, 2, 3].map((n) => acquire(onHost(10 + n, `pod-${n}`))));
      const winners = results.filter((r) => r.status === 'fulfilled');
      expect(winners).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(LockHeldError);
      await (winners[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquire>>>).value.release();
    }
  });

  it('notices a take-over while it was stalled: confirm() throws and release leaves the new lock alone', async () => {
    const stalled = await acquire(onHost(100));
    clock += LEASE_MS + 1;
    const taker = await acquire(onHost(7, 'pod-b'));
    await expect(stalled.confirm()).rejects.toBeInstanceOf(StateConflictError);
    expect(stalled.lost).toBe(true);
    await stalled.release();
    expect(holder()).toMatchObject({ pid: 7 });
    await taker.confirm();
    await taker.release();
    expect(store.objects.has(KEY)).toBe(false);
  });

  it('refreshes with a new ETag each time, so a refresh is never mistaken for the same stale object', async () => {
    await acquire(onHost(100));
    const etags = new Set([store.objects.get(KEY)!.etag]);
    for (let i = 0; i < 3; i++) {
      clock += HEARTBEAT_MS;
      await vi.advanceTimersByTimeAsync(HEARTBEAT_MS);
      etags.add(store.objects.get(KEY)!.etag);
    }
    expect(etags.size).toBe(4);
  });
});
