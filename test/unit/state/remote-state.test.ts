import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { StateConflictError, StateCorruptError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { openStateDb } from '../../../src/state/database.js';
import { createKvStore } from '../../../src/state/kv-store.js';
import type { BaseLimits } from '../../../src/state/remote/state-replica.js';
import { openRemoteState, type StateHandle } from '../../../src/state/state-handle.js';
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

const open = (confirmLock?: () => Promise<void>, limits?: Partial<BaseLimits>) =>
  openRemoteState({ store, key: KEY, logger: silentLogger(), confirmLock, limits });
const writable = (limits?: Partial<BaseLimits>) => open(async () => undefined, limits);

/** What a later run reads: the state rebuilt from the store by a read-only open. */
async function readBack<T>(read: (state: StateHandle) => T): Promise<T> {
  const state = await open();
  try {
    return read(state);
  } finally {
    await state.close();
  }
}

const runIds = (state: StateHandle) =>
  (state.db.db.prepare('SELECT run_id FROM runs ORDER BY run_id').all() as Array<{ run_id: string }>).map(
    (r) => r.run_id,
  );
const addRun = (state: StateHandle, id: string) =>
  state.db.db.prepare("INSERT INTO runs (run_id, status, started_at) VALUES (?, 'finished', 'x')").run(id);
/** One commit, as a checkpoint makes: the state fsyncs every commit. */
const inTransaction = (state: StateHandle, write: () => void) => state.db.db.transaction(write)();
const head = () => JSON.parse(store.objects.get(KEY)!.body.toString('utf8'));
const objectKeys = () => [...store.objects.keys()].filter((k) => k !== KEY).sort();

describe('a state kept in object storage', () => {
  it('starts fresh without an object, uploads a consistent state, and resumes from it elsewhere', async () => {
    const first = await writable();
    expect(first.location).toBe(`s3://memory/${KEY}`);
    addRun(first, 'r1');
    await first.close({ save: true });
    expect(await readBack(runIds)).toEqual(['r1']);
    const second = await writable();
    expect(runIds(second)).toEqual(['r1']);
    addRun(second, 'r2');
    await second.close({ save: true });
    expect(await readBack(runIds)).toEqual(['r1', 'r2']);
  });

  it('coalesces uploads requested during one, and flush() covers every commit made before it', async () => {
    const state = await writable();
    const heads: number[] = [];
    const put = store.put.bind(store);
    store.put = async (key, body, condition) => {
      if (key === KEY) heads.push(body.length);
      return put(key, body, condition);
    };
    for (let i = 0; i < 10; i++) {
      addRun(state, `r${i}`);
      state.committed();
    }
    await state.flush();
    expect(heads.length).toBeGreaterThanOrEqual(1);
    expect(heads.length).toBeLessThanOrEqual(3);
    expect(await readBack(runIds)).toHaveLength(10);
    await state.close();
  });

  it('never overwrites a state another run wrote since: the conflict is final and stops every later save', async () => {
    const seed = await writable();
    await seed.close({ save: true });
    const late = await writable();
    const newer = store.write(KEY, 'written by another run');
    addRun(late, 'late');
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
    expect(store.objects.size).toBe(0);
    const state = await open(async () => {
      throw new StateConflictError('the state lock was taken over');
    });
    await expect(state.close({ save: true })).rejects.toThrow('the state lock was taken over');
    expect(store.objects.size).toBe(0);
  });
});

describe('uploads that follow the change', () => {
  it('send nothing when nothing changed, only the changed rows when some did, and a new base when the log outgrows the last', async () => {
    const first = await writable({ minLogBytes: 64 * 1024 });
    const kv = createKvStore(first.db);
    inTransaction(first, () => {
      for (let i = 0; i < 1000; i++) kv.put('fp:conversations', `c${i}`, 'x'.repeat(100));
    });
    await first.close({ save: true });
    const base = head();
    expect(base.log).toEqual([]);
    expect(base.base.bytes).toBeGreaterThan(100_000);
    const generationObjects = objectKeys();

    // Unchanged: no change file, no head written.
    const before = { ...store.moved };
    const quiet = await writable({ minLogBytes: 64 * 1024 });
    await quiet.flush();
    await quiet.close({ save: true });
    expect(store.moved.up - before.up).toBe(0);
    expect(head()).toEqual(base);

    // 1 % of the rows changed: one change file of about 1 % of the base, and the head.
    const up = store.moved.up;
    const changed = await writable({ minLogBytes: 64 * 1024 });
    const kv2 = createKvStore(changed.db);
    inTransaction(changed, () => {
      for (let i = 0; i < 10; i++) kv2.put('fp:conversations', `c${i * 100}`, 'y'.repeat(100));
      kv2.remove('fp:conversations', 'c1');
    });
    await changed.close({ save: true });
    const log = head().log;
    expect(log).toHaveLength(1);
    expect(log[0].bytes).toBeLessThan(base.base.bytes / 20);
    expect(store.moved.up - up).toBeLessThan(log[0].bytes + 2048);
    const read = await readBack((s) => {
      const store2 = createKvStore(s.db);
      return {
        c0: store2.get('fp:conversations', 'c0'),
        c1: store2.get('fp:conversations', 'c1'),
        n: store2.count('fp:conversations'),
      };
    });
    expect(read).toEqual({ c0: 'y'.repeat(100), c1: undefined, n: 999 });

    // Changes until the log outgrows its minimum: the next upload writes a new base, and the old generation goes.
    for (let round = 0; head().log.length > 0; round++) {
      const next = await writable({ minLogBytes: 64 * 1024 });
      const kv3 = createKvStore(next.db);
      inTransaction(next, () => {
        for (let i = 2; i < 502; i++) kv3.put('fp:conversations', `c${i}`, `${round}`.repeat(100));
      });
      await next.close({ save: true });
      expect(round).toBeLessThan(20);
    }
    expect(head().generation).not.toBe(base.generation);
    for (const key of generationObjects) expect(store.objects.has(key), key).toBe(false);
    expect(objectKeys()).toHaveLength(1);
    expect(await readBack((s) => createKvStore(s.db).count('fp:conversations'))).toBe(999);
  });

  it('reads a state written as one SQLite object by the earlier version, and replaces it by a head at the first save', async () => {
    const legacy = openStateDb(join(dir, 'legacy.sqlite'));
    addRun({ db: legacy } as StateHandle, 'old');
    legacy.db.pragma('wal_checkpoint(TRUNCATE)');
    legacy.close();
    store.write(KEY, readFileSync(join(dir, 'legacy.sqlite')));
    expect(await readBack(runIds)).toEqual(['old']);
    const state = await writable();
    addRun(state, 'new');
    await state.close({ save: true });
    expect(head().format).toBe('helpdesk-sync-state/2');
    expect(await readBack(runIds)).toEqual(['new', 'old']);
  });

  it('refuses a state whose parts do not match its head, naming the object', async () => {
    const state = await writable();
    addRun(state, 'r1');
    await state.close({ save: true });
    const [baseObject] = objectKeys();
    store.write(baseObject!, 'not the base');
    await expect(open()).rejects.toThrow(StateCorruptError);
    await expect(open()).rejects.toThrow(`s3://memory/${baseObject} is not the file the head names`);
    store.write(KEY, '{"format":"something else"}');
    await expect(open()).rejects.toThrow('the object is neither a state head nor a SQLite database');
  });

  it('keeps the copy of a run that uploaded everything for the next run of the process, while the head is unchanged', async () => {
    const first = await writable();
    addRun(first, 'r1');
    await first.close({ save: true });
    const down = store.moved.down;
    const second = await writable();
    expect(store.moved.down - down).toBe(0);
    expect(runIds(second)).toEqual(['r1']);
    addRun(second, 'r2');
    await second.close({ save: true });
    // Another writer (another process) moves the head: the copy is not trusted, the state is read again.
    const other = head();
    store.write(KEY, JSON.stringify({ ...other, writer: 'someone else' }));
    const third = await writable();
    expect(store.moved.down - down).toBeGreaterThan(0);
    expect(runIds(third)).toEqual(['r1', 'r2']);
    // A run that could not upload leaves no copy behind.
    store.write(KEY, 'taken');
    addRun(third, 'r3');
    await expect(third.close({ save: true })).rejects.toBeInstanceOf(StateConflictError);
    store.write(KEY, JSON.stringify(other));
    const down2 = store.moved.down;
    await (await writable()).close();
    expect(store.moved.down - down2).toBeGreaterThan(0);
  });
});

describe('a copy kept in state.cache_dir', () => {
  const cacheDir = () => join(dir, 'cache');
  /** A run in a process of its own: nothing is shared with the last one but the directory. */
  const run = () =>
    openRemoteState({
      store,
      key: KEY,
      logger: silentLogger(),
      confirmLock: async () => undefined,
      cacheDir: cacheDir(),
    });
  const entries = () => readdirSync(cacheDir()).sort();

  it('lets the next run download nothing while no other run wrote the state, and is never trusted otherwise', async () => {
    const first = await run();
    // The run works inside the cache directory, in a private directory of its own.
    expect(first.workDir?.startsWith(cacheDir())).toBe(true);
    expect(statSync(first.workDir!).mode & 0o777).toBe(0o700);
    addRun(first, 'r1');
    await first.close({ save: true });
    expect(entries()).toHaveLength(1);
    const [entry] = entries();
    expect(statSync(join(cacheDir(), entry!)).mode & 0o777).toBe(0o700);

    const down = store.moved.down;
    const second = await run();
    expect(store.moved.down - down).toBe(0);
    expect(runIds(second)).toEqual(['r1']);
    // Taken: while the run works, no copy looks current.
    expect(entries()).not.toContain(entry);
    addRun(second, 'r2');
    await second.close({ save: true });
    expect(entries()).toEqual([entry]);

    // Another writer moved the head: the copy is not trusted, the state is read again.
    store.write(KEY, JSON.stringify({ ...head(), writer: 'someone else' }));
    const third = await run();
    expect(store.moved.down - down).toBeGreaterThan(0);
    expect(runIds(third)).toEqual(['r1', 'r2']);
    addRun(third, 'r3');
    // A run that dies before its end (its directory left behind) leaves no copy: the next one downloads.
    const down3 = store.moved.down;
    const fourth = await run();
    expect(store.moved.down - down3).toBeGreaterThan(0);
    // The dead run's directory is gone; only the live run's remains.
    expect(entries()).toEqual([basename(fourth.workDir!)]);
    await fourth.close({ save: true });
    await third.close();
  });

  it('keeps no copy after a run that could not upload, nor one whose record names another state', async () => {
    const first = await run();
    addRun(first, 'r1');
    await first.close({ save: true });
    const [entry] = entries();
    const saved = head();
    const second = await run();
    store.write(KEY, 'taken');
    addRun(second, 'r2');
    await expect(second.close({ save: true })).rejects.toBeInstanceOf(StateConflictError);
    expect(entries()).toEqual([]);
    store.write(KEY, JSON.stringify(saved));

    const third = await run();
    await third.close({ save: true });
    const record = join(cacheDir(), entry!, 'copy.json');
    writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, 'utf8')), url: 's3://other/state' }));
    const down = store.moved.down;
    const fourth = await run();
    expect(store.moved.down - down).toBeGreaterThan(0);
    expect(runIds(fourth)).toEqual(['r1']);
    await fourth.close();
  });

  it('names the directory when it cannot be used', async () => {
    writeFileSync(join(dir, 'a-file'), '');
    await expect(
      openRemoteState({
        store,
        key: KEY,
        logger: silentLogger(),
        confirmLock: async () => undefined,
        cacheDir: join(dir, 'a-file', 'cache'),
      }),
    ).rejects.toThrow(`state.cache_dir ${join(dir, 'a-file', 'cache')} cannot be used`);
  });
});
