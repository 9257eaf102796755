import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { StateConflictError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { openRemoteState } from '../../../src/state/state-handle.js';
import { MemoryObjectStore } from '../lock/memory-object-store.js';

const KEY = 'hs/state.sqlite';
let store: MemoryObjectStore;
let dir: string;
beforeEach(() => {
  store = new MemoryObjectStore(systemClock);
  dir = mkdtempSync(join(tmpdir(), 'hs-remote-state-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Reads one value back out of the uploaded object. */
function uploadedRuns(): number {
  const path = join(dir, 'check.sqlite');
  writeFileSync(path, store.objects.get(KEY)!.body);
  const db = new Database(path, { readonly: true });
  const n = (db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n;
  db.close();
  return n;
}

const open = (confirmLock?: () => Promise<void>) =>
  openRemoteState({ store, key: KEY, logger: silentLogger(), confirmLock });

describe('a state kept in object storage', () => {
  it('starts fresh without an object, uploads a consistent snapshot, and resumes from it elsewhere', async () => {
    const first = await open(async () => undefined);
    expect(first.location).toBe(`s3://memory/${KEY}`);
    first.db.db.prepare("INSERT INTO runs (run_id, status, started_at) VALUES ('r1', 'finished', 'x')").run();
    await first.close({ save: true });
    expect(uploadedRuns()).toBe(1);
    const second = await open(async () => undefined);
    expect((second.db.db.prepare('SELECT run_id FROM runs').all() as Array<{ run_id: string }>)[0]?.run_id).toBe('r1');
    await second.close();
  });

  it('coalesces uploads requested during one, and flush() covers every commit made before it', async () => {
    const state = await open(async () => undefined);
    const puts: number[] = [];
    const put = store.put.bind(store);
    store.put = async (key, body, condition) => {
      puts.push(body.length);
      return put(key, body, condition);
    };
    const insert = state.db.db.prepare("INSERT INTO runs (run_id, status, started_at) VALUES (?, 'finished', 'x')");
    for (let i = 0; i < 10; i++) {
      insert.run(`r${i}`);
      state.committed();
    }
    await state.flush();
    expect(puts.length).toBeGreaterThanOrEqual(1);
    expect(puts.length).toBeLessThanOrEqual(3);
    expect(uploadedRuns()).toBe(10);
    await state.close();
  });

  it('never overwrites a state another run wrote since: the conflict is final and stops every later save', async () => {
    const seed = await open(async () => undefined);
    await seed.close({ save: true });
    const late = await open(async () => undefined);
    const newer = store.write(KEY, 'written by another run');
    late.committed();
    await expect(late.flush()).rejects.toBeInstanceOf(StateConflictError);
    expect(() => late.committed()).toThrow(StateConflictError);
    await expect(late.close({ save: true })).rejects.toBeInstanceOf(StateConflictError);
    expect(store.objects.get(KEY)!.etag).toBe(newer);
  });

  it('uploads nothing once the lock is lost, and a read-only open never uploads', async () => {
    const readOnly = await open();
    readOnly.committed();
    await readOnly.close({ save: true });
    expect(store.objects.has(KEY)).toBe(false);
    const state = await open(async () => {
      throw new StateConflictError('the state lock was taken over');
    });
    await expect(state.close({ save: true })).rejects.toThrow('the state lock was taken over');
    expect(store.objects.has(KEY)).toBe(false);
  });
});
