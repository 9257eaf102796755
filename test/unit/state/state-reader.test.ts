import { describe, expect, it } from 'vitest';
import { openStateDb } from '../../../src/state/database.js';
import { createKvStore } from '../../../src/state/kv-store.js';
import { createStateReader } from '../../../src/state/state-reader.js';

describe('createStateReader', () => {
  it('lookup reads one committed key without loading the scope into the snapshot', () => {
    const state = openStateDb(':memory:');
    const store = createKvStore(state);
    for (const scope of ['fp:thread', 'fp:tags']) {
      store.put(scope, 'c1', '{"a":1}');
      store.put(scope, 'c2', '{"b":2}');
    }
    const reader = createStateReader(state);
    expect(reader.lookup!('fp:thread', 'c1')).toBe('{"a":1}');
    expect(reader.lookup!('fp:thread', 'missing')).toBeUndefined();
    expect(reader.lookup!('fp:tags', 'c1')).toBe('{"a":1}');
    // A key committed later is visible to lookup (no snapshot was taken)...
    store.put('fp:tags', 'c3', '{"c":3}');
    expect(reader.lookup!('fp:tags', 'c3')).toBe('{"c":3}');
    // ...while get() keeps the per-scope snapshot taken at its first read...
    expect(reader.get('fp:tags', 'c3')).toBe('{"c":3}');
    store.put('fp:tags', 'c4', '{"d":4}');
    expect(reader.get('fp:tags', 'c4')).toBeUndefined();
    // ...except for the per-conversation scopes, which grow with the account: never held whole.
    expect(reader.get('fp:thread', 'c1')).toBe('{"a":1}');
    store.put('fp:thread', 'c4', '{"d":4}');
    expect(reader.get('fp:thread', 'c4')).toBe('{"d":4}');
    state.close();
  });
});

describe('createStateReader scanKeys and countKeys', () => {
  it.each([
    ['fp:conversations', 'a per-conversation scope'],
    ['fp:contacts', 'a kv_state scope'],
  ])('read %s (%s) as committed now, in key order, across chunks, without a snapshot', (scope) => {
    const state = openStateDb(':memory:');
    const store = createKvStore(state);
    const keys = Array.from({ length: 2345 }, (_, i) => `c${String(i).padStart(5, '0')}`);
    for (const key of [...keys].reverse()) store.put(scope, key, 'xxxx');
    store.put('fp:other', 'c00001', 'y');
    store.put('fp:thread_at', 'c00001', 'y');
    const reader = createStateReader(state);
    expect(reader.countKeys!(scope)).toBe(2345);
    expect(reader.countKeys!('fp:none')).toBe(0);
    const read: string[] = [];
    for (const key of reader.scanKeys!(scope)) {
      read.push(key);
      // A write between chunks is allowed (no statement is left open) and later keys are seen.
      if (read.length === 1500) store.put(scope, 'c99999', 'xxxx');
    }
    expect(read).toEqual([...keys, 'c99999']);
    state.close();
  });
});
