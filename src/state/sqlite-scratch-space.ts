import { closeSync, openSync, rmSync } from 'node:fs';
import Database, { type Statement } from 'better-sqlite3';
import type { ScratchMap, ScratchSpace } from '../scratch-space.js';
import { type DatabasePlace, explainOpenError, explainStateError } from './explain-state-error.js';

/** The scratch file, as its errors name it: it lives in the spool, and nothing outlives the run. */
function scratchPlace(path: string): DatabasePlace {
  return {
    what: 'scratch database',
    path: path || '(temporary)',
    setting: 'the spool beside state.path, or destination.spool_path',
  };
}

/** Writes buffered in memory before one transaction writes them: a few hundred kB at most. */
const WRITE_BATCH = 2000;
/** Keys read per query by keys(). */
const KEY_CHUNK = 1000;

export interface SqliteScratchSpace extends ScratchSpace {
  /** Closes the database and deletes its file. Safe to call twice. */
  close(): void;
}

interface Statements {
  get: Statement<[number, string], { value: string }>;
  put: Statement<[number, string, string]>;
  clear: Statement<[number]>;
  chunk: Statement<[number, string, number], { key: string }>;
}

/**
 * A ScratchSpace in its own SQLite file (not the state database): the scan's
 * per-conversation bookkeeping lives in pages on disk and in a small page
 * cache, so the run's heap does not grow with the account.
 *
 * Why a file of its own: nothing in it outlives the run, so it needs no
 * journal file and no fsync (`journal_mode = MEMORY`, `synchronous = OFF`; OFF
 * is refused in better-sqlite3's defensive mode, and a batch's journal is small), whereas
 * the state database fsyncs every commit and is what a stateless deployment
 * copies to S3; a crashed run leaves at most this file, in the spool directory
 * that the next run clears. `path` '' gives SQLite's private temporary file.
 *
 * Writes are buffered and written `WRITE_BATCH` at a time in one transaction
 * with a prepared statement; reads look in the buffer first, then the table.
 */
export function openSqliteScratchSpace(path: string): SqliteScratchSpace {
  let db: Database.Database;
  try {
    if (path !== '') {
      rmSync(path, { force: true });
      // Created 0600 first, as the state and spool files are: it holds ids and hashes.
      closeSync(openSync(path, 'wx', 0o600));
    }
    db = new Database(path);
    db.pragma('journal_mode = MEMORY');
    db.pragma('synchronous = OFF');
    // 8 MiB of page cache: enough for the index's upper levels; the rest stays on disk.
    db.pragma('cache_size = -8192');
    db.exec(
      'CREATE TABLE entries (map INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (map, key)) WITHOUT ROWID',
    );
  } catch (error) {
    throw explainOpenError(error, scratchPlace(path));
  }
  const st: Statements = {
    get: db.prepare('SELECT value FROM entries WHERE map = ? AND key = ?'),
    put: db.prepare('INSERT OR REPLACE INTO entries (map, key, value) VALUES (?, ?, ?)'),
    clear: db.prepare('DELETE FROM entries WHERE map = ?'),
    chunk: db.prepare('SELECT key FROM entries WHERE map = ? AND key >= ? ORDER BY key LIMIT ?'),
  };
  const ids = new Map<string, number>();
  let closed = false;
  const write = db.transaction((map: number, pending: Map<string, string>) => {
    for (const [key, value] of pending) st.put.run(map, key, value);
  });
  // Writes are where a full spool disk shows; batched, so the wrapper costs nothing per entry.
  const writeAll = (map: number, pending: Map<string, string>) => {
    try {
      write(map, pending);
    } catch (error) {
      throw explainStateError(error, scratchPlace(path));
    }
  };
  return {
    map(name) {
      let id = ids.get(name);
      if (id === undefined) {
        id = ids.size;
        ids.set(name, id);
      } else {
        st.clear.run(id);
      }
      return new SqliteScratchMap(id, st, writeAll);
    },
    close() {
      if (closed) return;
      closed = true;
      db.close();
      if (path !== '') rmSync(path, { force: true });
    },
  };
}

class SqliteScratchMap implements ScratchMap {
  #pending = new Map<string, string>();

  constructor(
    private readonly id: number,
    private readonly st: Statements,
    private readonly writeAll: (map: number, pending: Map<string, string>) => void,
  ) {}

  get(key: string): string | undefined {
    return this.#pending.get(key) ?? this.st.get.get(this.id, key)?.value;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: string): void {
    this.#pending.set(key, value);
    if (this.#pending.size >= WRITE_BATCH) this.#flush();
  }

  *keys(): Generator<string> {
    this.#flush();
    let from = '';
    let skipFirst = false;
    for (;;) {
      const rows = this.st.chunk.all(this.id, from, KEY_CHUNK + (skipFirst ? 1 : 0));
      const keys = skipFirst ? rows.slice(1) : rows;
      for (const row of keys) yield row.key;
      if (keys.length < KEY_CHUNK) return;
      // Resume at the last key read (inclusive, skipped): '' stays a valid key.
      from = (rows.at(-1) as { key: string }).key;
      skipFirst = true;
      this.#flush();
    }
  }

  #flush(): void {
    if (this.#pending.size === 0) return;
    this.writeAll(this.id, this.#pending);
    this.#pending = new Map();
  }
}
