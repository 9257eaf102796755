import { describe, expect, it } from 'vitest';
import { openStateDb } from '../../../src/state/database.js';
import { createStateReader } from '../../../src/state/state-reader.js';

describe('createStateReader', () => {
  it('lookup reads one committed key without loading the scope into the snapshot', () => {
    const state = openStateDb(':memory:');
    const insert = state.db.prepare('INSERT INTO kv_state (scope, key, value) VALUES (?, ?, ?)');
    insert.run('fp:thread', 'c1', '{"a":1}');
    insert.run('fp:thread', 'c2', '{"b":2}');
    const reader = createStateReader(state);
    expect(reader.lookup!('fp:thread', 'c1')).toBe('{"a":1}');
    expect(reader.lookup!('fp:thread', 'missing')).toBeUndefined();
    // A key committed later is visible to lookup (no snapshot was taken)...
    insert.run('fp:thread', 'c3', '{"c":3}');
    expect(reader.lookup!('fp:thread', 'c3')).toBe('{"c":3}');
    // ...while get() keeps the per-scope snapshot taken at its first read.
    expect(reader.get('fp:thread', 'c3')).toBe('{"c":3}');
    insert.run('fp:thread', 'c4', '{"d":4}');
    expect(reader.get('fp:thread', 'c4')).toBeUndefined();
    state.close();
  });
});

describe('createStateReader scanKeys and countKeys', () => {
  it('read a scope as committed now, in key order, across chunks, without a snapshot', () => {
    const state = openStateDb(':memory:');
    const insert = state.db.prepare('INSERT INTO kv_state (scope, key, value) VALUES (?, ?, ?)');
    const keys = Array.from({ length: 2345 }, (_, i) => `c${String(i).padStart(5, '0')}`);
    for (const key of [...keys].reverse()) insert.run('fp:conversations', key, 'x');
    insert.run('fp:other', 'c00001', 'y');
    const reader = createStateReader(state);
    expect(reader.countKeys!('fp:conversations')).toBe(2345);
    expect(reader.countKeys!('fp:none')).toBe(0);
    const read: string[] = [];
    for (const key of reader.scanKeys!('fp:conversations')) {
      read.push(key);
      // A write between chunks is allowed (no statement is left open) and later keys are seen.
      if (read.length === 1500) insert.run('fp:conversations', 'c99999', 'x');
    }
    expect(read).toEqual([...keys, 'c99999']);
    state.close();
  });
});
