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
