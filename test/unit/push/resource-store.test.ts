import { describe, expect, it } from 'vitest';
import { createMemoryResourceStore, type ResourceStore } from '../../../src/push/mappings/resource-store.js';
import { createSqliteResourceStore } from '../../../src/push/mappings/sqlite-resource-store.js';
import { openStateDb } from '../../../src/state/database.js';

const record = (key: string, remote_id: string, kind: 'business_hours' | 'holiday' = 'holiday') => ({
  kind,
  key,
  remote_id,
  applied_hash: `hash-${remote_id}`,
  applied_at: '2026-11-20T10:00:00.000Z',
});

function exercise(store: ResourceStore): void {
  store.put(record('b', 'r2'));
  store.put(record('a', 'r1'));
  store.put(record('a', 'r1', 'business_hours'));
  expect(store.list('holiday').map((r) => r.key)).toEqual(['a', 'b']);
  expect(store.get('holiday', 'a')).toEqual(record('a', 'r1'));
  store.put({ ...record('a', 'r9'), applied_hash: 'new' });
  expect(store.get('holiday', 'a')).toMatchObject({ remote_id: 'r9', applied_hash: 'new' });
  store.delete('holiday', 'a');
  expect(store.get('holiday', 'a')).toBeUndefined();
  expect(store.list('business_hours')).toEqual([record('a', 'r1', 'business_hours')]);
}

describe('resource stores', () => {
  it('memory: get, list by kind in key order, upsert, delete', () => {
    exercise(createMemoryResourceStore());
  });

  it('SQLite on the migrated state database', () => {
    const state = openStateDb(':memory:');
    exercise(createSqliteResourceStore(state.db));
    state.close();
  });
});
