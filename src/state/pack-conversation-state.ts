import type Database from 'better-sqlite3';
import { packHashMaps } from '../packed-hash-maps.js';
import { isPlainObject } from '../plain-object.js';
import { CONVERSATION_STATE_TABLES, createConversationState } from './conversation-state.js';

/**
 * The per-conversation scopes as the states this migration reads named them.
 * Spelled out, not read off the catalog: a released migration must read the
 * same rows whatever the declarations say later.
 */
const FINGERPRINT = 'fp:conversations';
const THREAD_AT = 'fp:thread_at';
const THREAD = 'fp:thread';

/** kv_state rows moved per query: bounded memory whatever the state's size. */
const CHUNK = 1000;

/**
 * A thread's row hashes written as JSON (`{"e":{…},"m":{…},"a":{…}}`) in their
 * packed form, which unpacks to the very same maps; a value that is not such
 * JSON is kept as it is (a reader treats it as unreadable, as before).
 */
function packThread(value: string | Buffer): string | Buffer {
  if (typeof value !== 'string') return value;
  try {
    const parsed: unknown = JSON.parse(value);
    if (!isPlainObject(parsed)) return value;
    const maps: Record<string, Record<string, string>> = {};
    for (const [name, map] of Object.entries(parsed)) {
      if (!isPlainObject(map) || Object.values(map).some((h) => typeof h !== 'string')) return value;
      maps[name] = map as Record<string, string>;
    }
    return packHashMaps(maps);
  } catch {
    return value;
  }
}

/**
 * The state migration that moves the per-conversation scopes out of kv_state
 * into conversation_state and thread_state (conversation-state.ts), packing ids,
 * fingerprints and thread hashes. Nothing is lost: every key and value reads
 * back as it was written (a thread value as the same maps), and a value no
 * packed form fits is moved as it is. Runs inside the migration's transaction.
 */
export function packConversationState(db: Database.Database): void {
  db.exec(CONVERSATION_STATE_TABLES);
  const store = createConversationState(db);
  const chunk = db.prepare<[string, string, number], { key: string; value: string | Buffer }>(
    'SELECT key, value FROM kv_state WHERE scope = ? AND key > ? ORDER BY key LIMIT ?',
  );
  // Fingerprints first: the conversations are numbered in id order, one append after the other.
  for (const scope of [FINGERPRINT, THREAD_AT, THREAD]) {
    let after = '';
    for (;;) {
      const rows = chunk.all(scope, after, CHUNK);
      for (const { key, value } of rows) {
        store.put(scope, key, scope === THREAD ? packThread(value) : value);
      }
      if (rows.length < CHUNK) break;
      after = (rows.at(-1) as { key: string }).key;
    }
    db.prepare('DELETE FROM kv_state WHERE scope = ?').run(scope);
  }
}
