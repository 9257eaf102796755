import type { Statement } from 'better-sqlite3';
import type { StateReader } from '../kv-state.js';
import type { StateDb } from './database.js';

/**
 * Read-only view of committed state for streams. Each scope is loaded into memory
 * the first time it is read and then stays as it was: a stream sees one consistent
 * picture of its own scope for the whole run, and `get` is a Map lookup. Commits
 * made by this run's checkpoints are not reflected (the stream already knows what
 * it staged). Memory: about 150 bytes per key of the scopes that are read with
 * `get`/`keys`; `lookup` reads one committed key without a snapshot.
 */
export function createStateReader(state: StateDb): StateReader {
  const snapshots = new Map<string, Map<string, string>>();
  let select: Statement<[string], { key: string; value: string }> | undefined;
  let selectOne: Statement<[string, string], { value: string }> | undefined;

  function scope(name: string): Map<string, string> {
    let snapshot = snapshots.get(name);
    if (!snapshot) {
      select ??= state.db.prepare('SELECT key, value FROM kv_state WHERE scope = ?');
      snapshot = new Map();
      for (const row of select.iterate(name)) snapshot.set(row.key, row.value);
      snapshots.set(name, snapshot);
    }
    return snapshot;
  }

  return {
    get: (name, key) => scope(name).get(key),
    keys: (name) => scope(name).keys(),
    // Large scopes of which a run reads few keys (one JSON per conversation thread)
    // are read one row at a time through the primary key, never loaded whole.
    lookup: (name, key) => {
      selectOne ??= state.db.prepare('SELECT value FROM kv_state WHERE scope = ? AND key = ?');
      return selectOne.get(name, key)?.value;
    },
  };
}
