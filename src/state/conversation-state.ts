import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { CONVERSATION_SCOPES } from '../catalog/conversation-scopes.js';
import type { StateValue } from '../kv-state.js';
import { type PackedString, packBase64url, packId, unpackBase64url, unpackId } from '../packed-strings.js';

/**
 * The scopes that hold one entry per conversation (CONVERSATION_SCOPES), kept
 * in two tables of their own instead of kv_state (docs/streams.md, "State
 * kept by the streams"):
 *
 * - `conversation_state (n, id, fingerprint, thread_fingerprint)`: one row per
 *   conversation, its id packed to 16 bytes and its fingerprints to 12;
 * - `thread_state (n, hashes)`: its thread's row hashes, packed by the streams.
 *
 * `n` numbers conversations in the order they were first committed, so new rows
 * append to the end of both tables and their pages stay full (keyed by a random
 * UUID, pages fill to about two thirds). The id is stored once for all three
 * scopes, and no scope name is repeated per row. A conversation's row goes when
 * the last of its three values is deleted.
 */

type Column = 'fingerprint' | 'thread_fingerprint';

const COLUMNS: Readonly<Record<string, Column>> = {
  [CONVERSATION_SCOPES.fingerprint]: 'fingerprint',
  [CONVERSATION_SCOPES.threadAt]: 'thread_fingerprint',
};

/** True for the scopes this store holds. */
export function isConversationScope(scope: string): boolean {
  return scope === CONVERSATION_SCOPES.thread || Object.hasOwn(COLUMNS, scope);
}

/** The tables, as the state's migration creates them. */
export const CONVERSATION_STATE_TABLES = `
  CREATE TABLE conversation_state (
    n                  INTEGER PRIMARY KEY,
    id                 BLOB NOT NULL UNIQUE,
    fingerprint        BLOB,
    thread_fingerprint BLOB
  );
  CREATE TABLE thread_state (
    n      INTEGER PRIMARY KEY,
    hashes BLOB NOT NULL
  );
`;

const ORPHAN = `fingerprint IS NULL AND thread_fingerprint IS NULL
  AND NOT EXISTS (SELECT 1 FROM thread_state t WHERE t.n = conversation_state.n)`;

function fingerprintOf(scope: string, value: StateValue): PackedString {
  if (typeof value !== 'string') throw new TypeError(`state scope ${scope} holds text, not bytes`);
  return packBase64url(value);
}

/** Where a keyset scan stands: the stored form of the last id read. */
export type ScanCursor = PackedString | undefined;

export interface ConversationState {
  get(scope: string, id: string): StateValue | undefined;
  put(scope: string, id: string, value: StateValue): void;
  remove(scope: string, id: string): void;
  /** Up to `limit` ids of `scope` after `cursor`, in stored order, and the cursor to go on from. */
  idsAfter(scope: string, cursor: ScanCursor, limit: number): { ids: string[]; cursor: ScanCursor };
  count(scope: string): number;
  /** Forgets a whole scope; returns how many values went. */
  clear(scope: string): number;
}

/** What every scope of this store answers the same way. */
interface ScopeStatements {
  get: Statement<[PackedString], { v: PackedString | null }>;
  unset: Statement<[PackedString]>;
  first: Statement<[number], { id: PackedString }>;
  after: Statement<[PackedString, number], { id: PackedString }>;
  count: Statement<[], { n: number }>;
  clear: Statement<[]>;
}

function prepareAll(db: Database.Database) {
  const columnStatements = (column: Column) => ({
    get: db.prepare<[PackedString], { v: PackedString | null }>(
      `SELECT ${column} AS v FROM conversation_state WHERE id = ?`,
    ),
    put: db.prepare<[PackedString, PackedString]>(
      `INSERT INTO conversation_state (id, ${column}) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET ${column} = excluded.${column}`,
    ),
    unset: db.prepare<[PackedString]>(`UPDATE conversation_state SET ${column} = NULL WHERE id = ?`),
    first: db.prepare<[number], { id: PackedString }>(
      `SELECT id FROM conversation_state WHERE ${column} IS NOT NULL ORDER BY id LIMIT ?`,
    ),
    after: db.prepare<[PackedString, number], { id: PackedString }>(
      `SELECT id FROM conversation_state WHERE id > ? AND ${column} IS NOT NULL ORDER BY id LIMIT ?`,
    ),
    count: db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM conversation_state WHERE ${column} IS NOT NULL`),
    clear: db.prepare<[]>(`UPDATE conversation_state SET ${column} = NULL WHERE ${column} IS NOT NULL`),
  });
  return {
    fingerprint: columnStatements('fingerprint'),
    thread_fingerprint: columnStatements('thread_fingerprint'),
    thread: {
      get: db.prepare<[PackedString], { v: PackedString }>(
        'SELECT t.hashes AS v FROM conversation_state c JOIN thread_state t ON t.n = c.n WHERE c.id = ?',
      ),
      ensure: db.prepare<[PackedString]>('INSERT INTO conversation_state (id) VALUES (?) ON CONFLICT (id) DO NOTHING'),
      number: db.prepare<[PackedString], { n: number }>('SELECT n FROM conversation_state WHERE id = ?'),
      put: db.prepare<[number, StateValue]>(
        'INSERT INTO thread_state (n, hashes) VALUES (?, ?) ON CONFLICT (n) DO UPDATE SET hashes = excluded.hashes',
      ),
      unset: db.prepare<[PackedString]>(
        'DELETE FROM thread_state WHERE n = (SELECT n FROM conversation_state WHERE id = ?)',
      ),
      first: db.prepare<[number], { id: PackedString }>(
        'SELECT c.id FROM conversation_state c JOIN thread_state t ON t.n = c.n ORDER BY c.id LIMIT ?',
      ),
      after: db.prepare<[PackedString, number], { id: PackedString }>(
        'SELECT c.id FROM conversation_state c JOIN thread_state t ON t.n = c.n WHERE c.id > ? ORDER BY c.id LIMIT ?',
      ),
      count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM thread_state'),
      clear: db.prepare<[]>('DELETE FROM thread_state'),
    },
    dropIfEmpty: db.prepare<[PackedString]>(`DELETE FROM conversation_state WHERE id = ? AND ${ORPHAN}`),
    dropEmpty: db.prepare(`DELETE FROM conversation_state WHERE ${ORPHAN}`),
  };
}

/** The per-conversation scopes of a state database (statements prepared once, on first use). */
export function createConversationState(db: Database.Database): ConversationState {
  let prepared: ReturnType<typeof prepareAll> | undefined;
  const st = () => {
    prepared ??= prepareAll(db);
    return prepared;
  };
  const scoped = (scope: string): ScopeStatements => {
    if (scope === CONVERSATION_SCOPES.thread) return st().thread;
    const column = COLUMNS[scope];
    if (column === undefined) throw new RangeError(`${scope} is not a per-conversation state scope`);
    return st()[column];
  };
  return {
    get(scope, id) {
      const v = scoped(scope).get.get(packId(id))?.v;
      if (v === undefined || v === null) return undefined;
      return scope === CONVERSATION_SCOPES.thread ? v : unpackBase64url(v);
    },
    put(scope, id, value) {
      scoped(scope);
      const key = packId(id);
      const column = COLUMNS[scope];
      if (column !== undefined) {
        st()[column].put.run(key, fingerprintOf(scope, value));
        return;
      }
      const s = st().thread;
      s.ensure.run(key);
      s.put.run((s.number.get(key) as { n: number }).n, value);
    },
    remove(scope, id) {
      const key = packId(id);
      if (scoped(scope).unset.run(key).changes > 0) st().dropIfEmpty.run(key);
    },
    idsAfter(scope, cursor, limit) {
      const s = scoped(scope);
      const rows = cursor === undefined ? s.first.all(limit) : s.after.all(cursor, limit);
      return { ids: rows.map((r) => unpackId(r.id)), cursor: rows.at(-1)?.id ?? cursor };
    },
    count: (scope) => scoped(scope).count.get()?.n ?? 0,
    clear(scope) {
      const cleared = scoped(scope).clear.run().changes;
      st().dropEmpty.run();
      return cleared;
    },
  };
}
