import type { StateReader, StateValue } from '../kv-state.js';
import { isConversationScope } from './conversation-state.js';
import type { StateDb } from './database.js';
import { createKvStore } from './kv-store.js';

/**
 * Read-only view of committed state for streams. Each scope is loaded into memory
 * the first time it is read and then stays as it was: a stream sees one consistent
 * picture of its own scope for the whole run, and `get` is a Map lookup. Commits
 * made by this run's checkpoints are not reflected (the stream already knows what
 * it staged). Memory: about 150 bytes per key of the scopes that are read with
 * `get`/`keys`; `lookup`, `scanKeys` and `countKeys` read the store as committed
 * now, without a snapshot, for scopes that grow with the account. The
 * per-conversation scopes are never snapshot: `get` and `keys` read them as
 * `lookup` and `scanKeys` do.
 */
export function createStateReader(state: StateDb): StateReader {
  const store = createKvStore(state);
  const snapshots = new Map<string, Map<string, StateValue>>();
  let select: ReturnType<typeof prepareSelect> | undefined;
  const prepareSelect = () =>
    state.db.prepare<[string], { key: string; value: StateValue }>('SELECT key, value FROM kv_state WHERE scope = ?');

  function scope(name: string): Map<string, StateValue> {
    let snapshot = snapshots.get(name);
    if (!snapshot) {
      select ??= prepareSelect();
      snapshot = new Map();
      for (const row of select.iterate(name)) snapshot.set(row.key, row.value);
      snapshots.set(name, snapshot);
    }
    return snapshot;
  }

  return {
    get: (name, key) => (isConversationScope(name) ? store.get(name, key) : scope(name).get(key)),
    keys: (name) => (isConversationScope(name) ? store.keys(name) : scope(name).keys()),
    // Large scopes of which a run reads few keys, or every key once, read one
    // row at a time through their primary key, never loaded whole.
    lookup: (name, key) => store.get(name, key),
    scanKeys: (name) => store.keys(name),
    countKeys: (name) => store.count(name),
  };
}
