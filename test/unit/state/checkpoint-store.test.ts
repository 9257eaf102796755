import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCheckpointStore, type FileRecord } from '../../../src/state/checkpoint-store.js';
import { openStateDb, type StateDb } from '../../../src/state/database.js';
import { createRunStore } from '../../../src/state/run-store.js';
import { createStateReader } from '../../../src/state/state-reader.js';

let state: StateDb;
beforeEach(() => {
  state = openStateDb(':memory:');
  createRunStore(state).begin('run-1', '2026-01-01T00:00:00.000Z');
  state.db.prepare("INSERT INTO kv_state VALUES ('fp', 'old', 'x'), ('fp', 'keep', 'k')").run();
});
afterEach(() => state.close());

const file = (key: string): FileRecord => ({
  key,
  run_id: 'run-1',
  table_name: 'tags',
  kind: 'data',
  rows: 3,
  bytes: 10,
  sha256: 'ab',
  schema_version: 'v',
  spool_path: `/spool/${key}`,
});
const kv = () => state.db.prepare('SELECT scope, key, value FROM kv_state ORDER BY scope, key').all();
const changes = [
  { scope: 'fp', key: 'a', value: '1' },
  { scope: 'fp', key: 'a', value: '2' },
  { scope: 'fp', key: 'old', value: null },
];

describe('checkpoint store', () => {
  it('keeps staged changes out of kv_state while pending, applies them in order on commit', () => {
    const store = createCheckpointStore(state);
    const id = store.recordPending('run-1', 't0', [file('f1'), file('f2')], changes);
    expect(kv()).toEqual([
      { scope: 'fp', key: 'keep', value: 'k' },
      { scope: 'fp', key: 'old', value: 'x' },
    ]);
    expect(store.pending()).toEqual([{ checkpoint_id: id, run_id: 'run-1' }]);
    store.commit(id, 't1');
    expect(kv()).toEqual([
      { scope: 'fp', key: 'a', value: '2' },
      { scope: 'fp', key: 'keep', value: 'k' },
    ]);
    expect(store.filesOf(id).map((f) => [f.key, f.status, f.committed_at, f.spool_path])).toEqual([
      ['f1', 'committed', 't1', null],
      ['f2', 'committed', 't1', null],
    ]);
    expect(store.pending()).toEqual([]);
    expect(state.db.prepare('SELECT count(*) FROM pending_state').pluck().get()).toBe(0);
    store.commit(id, 't2'); // a second commit changes nothing
    expect(store.filesOf(id)[0]!.committed_at).toBe('t1');
  });

  it('supersede drops the changes and marks the files for deletion', () => {
    const store = createCheckpointStore(state);
    const id = store.recordPending('run-1', 't0', [file('f1')], changes);
    store.supersede(id, 't1');
    expect(kv()).toHaveLength(2);
    expect(store.superseded().map((f) => f.key)).toEqual(['f1']);
    store.markDeleted('f1');
    expect(store.superseded()).toEqual([]);
    store.commit(id, 't2');
    expect(kv()).toHaveLength(2);
  });

  it('a failing transaction records nothing (a duplicate key aborts the whole checkpoint)', () => {
    const store = createCheckpointStore(state);
    store.commit(store.recordPending('run-1', 't0', [file('f1')], []), 't1');
    expect(() => store.recordPending('run-1', 't2', [file('f9'), file('f1')], changes)).toThrow();
    expect(store.pending()).toEqual([]);
    expect(state.db.prepare("SELECT count(*) FROM files WHERE key = 'f9'").pluck().get()).toBe(0);
  });
});

describe('state reader', () => {
  it('reads committed values through a per-scope snapshot taken at first read', () => {
    const reader = createStateReader(state);
    expect(reader.get('fp', 'keep')).toBe('k');
    expect([...reader.keys('fp')].sort()).toEqual(['keep', 'old']);
    const store = createCheckpointStore(state);
    store.commit(store.recordPending('run-1', 't0', [file('f1')], changes), 't1');
    expect(reader.get('fp', 'a')).toBeUndefined(); // snapshot of "fp" predates the commit
    expect(createStateReader(state).get('fp', 'a')).toBe('2');
    expect(reader.get('other', 'x')).toBeUndefined();
  });

  it('never shows pending changes', () => {
    createCheckpointStore(state).recordPending('run-1', 't0', [file('f1')], changes);
    expect(createStateReader(state).get('fp', 'a')).toBeUndefined();
  });
});
