import type { StateValue } from '../kv-state.js';
import { createConversationState, isConversationScope, type ScanCursor } from './conversation-state.js';
import type { StateDb } from './database.js';

/** Keys read per query by keys(): bounded memory, and no statement left open between chunks. */
const KEY_CHUNK = 1000;

/**
 * Committed key-value state, wherever a scope is kept: the per-conversation
 * scopes in their own tables (conversation-state.ts), every other scope in
 * kv_state. The one place that knows which is where; the commit protocol
 * writes through it, readers and `state show|reset` read through it.
 */
export interface KvStore {
  get(scope: string, key: string): StateValue | undefined;
  put(scope: string, key: string, value: StateValue): void;
  remove(scope: string, key: string): void;
  /**
   * Every key of a scope as committed now, a chunk at a time (keyset pages, so
   * the caller may commit between chunks: better-sqlite3 refuses writes while
   * an iterator is open). Keys committed meanwhile may or may not be seen.
   */
  keys(scope: string): Generator<string>;
  count(scope: string): number;
  /** Forgets a whole scope; returns how many keys went. */
  clear(scope: string): number;
}

/** The store of a state database (a read-only connection may read through it). */
export function createKvStore(state: Pick<StateDb, 'db'>): KvStore {
  const { db } = state;
  const conversations = createConversationState(db);
  const kv = {
    get: db.prepare<[string, string], { value: StateValue }>('SELECT value FROM kv_state WHERE scope = ? AND key = ?'),
    put: db.prepare<[string, string, StateValue]>(
      'INSERT INTO kv_state (scope, key, value) VALUES (?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value',
    ),
    remove: db.prepare<[string, string]>('DELETE FROM kv_state WHERE scope = ? AND key = ?'),
    chunk: db.prepare<[string, string, number], { key: string }>(
      'SELECT key FROM kv_state WHERE scope = ? AND key > ? ORDER BY key LIMIT ?',
    ),
    count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM kv_state WHERE scope = ?'),
    clear: db.prepare<[string]>('DELETE FROM kv_state WHERE scope = ?'),
  };

  function* kvKeys(scope: string): Generator<string> {
    let after = '';
    for (;;) {
      const rows = kv.chunk.all(scope, after, KEY_CHUNK);
      for (const row of rows) yield row.key;
      if (rows.length < KEY_CHUNK) return;
      after = (rows.at(-1) as { key: string }).key;
    }
  }

  function* conversationKeys(scope: string): Generator<string> {
    let cursor: ScanCursor;
    for (;;) {
      const page = conversations.idsAfter(scope, cursor, KEY_CHUNK);
      yield* page.ids;
      if (page.ids.length < KEY_CHUNK) return;
      cursor = page.cursor;
    }
  }

  return {
    get: (scope, key) => (isConversationScope(scope) ? conversations.get(scope, key) : kv.get.get(scope, key)?.value),
    put(scope, key, value) {
      if (isConversationScope(scope)) conversations.put(scope, key, value);
      else kv.put.run(scope, key, value);
    },
    remove(scope, key) {
      if (isConversationScope(scope)) conversations.remove(scope, key);
      else kv.remove.run(scope, key);
    },
    keys: (scope) => (isConversationScope(scope) ? conversationKeys(scope) : kvKeys(scope)),
    count: (scope) => (isConversationScope(scope) ? conversations.count(scope) : (kv.count.get(scope)?.n ?? 0)),
    clear: (scope) => (isConversationScope(scope) ? conversations.clear(scope) : kv.clear.run(scope).changes),
  };
}
