import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StateError } from '../errors.js';
import { type DatabasePlace, explainOpenError, stateRecovery } from './explain-state-error.js';
import { runMigrations } from './migrations.js';

export interface StateDb {
  /** The better-sqlite3 handle, for stores and other modules' queries. */
  readonly db: Database.Database;
  readonly path: string;
  /** Schema version after migrations. */
  readonly version: number;
  close(): void;
}

export interface OpenStateDbOptions {
  /** Milliseconds to wait for another connection's write lock. @default 5000 */
  busyTimeoutMs?: number;
  /** How errors name the file. @default the state database at `path`, from `state.path` */
  place?: DatabasePlace;
}

/** Below this many pages (4 MiB) a file is left as it is, however much of it is free. */
const COMPACT_MIN_PAGES = 1024;

/**
 * Rewrites the file when more than half of it is free pages: after a
 * migration moved most of the data (the per-conversation tables) or a `state
 * reset`. SQLite reuses free pages but never gives them back, so without this
 * a state migrated from the larger JSON form would keep its old size on disk.
 * Best effort: a database another connection holds stays as it is this time.
 */
function compactWhenMostlyFree(db: Database.Database): void {
  const pages = db.pragma('page_count', { simple: true }) as number;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  if (pages < COMPACT_MIN_PAGES || free * 2 <= pages) return;
  try {
    db.exec('VACUUM');
  } catch {
    // Busy (a reader beside a run): the next open tries again.
  }
}

/** The state database at `path`, as its errors name it. */
export function statePlace(path: string, setting = 'state.path'): DatabasePlace {
  return { what: 'state database', path, setting, recovery: stateRecovery(path) };
}

/**
 * Opens (creating it when absent) the state database, migrated to this binary's
 * schema (docs/state.md).
 *
 * - WAL journal: readers never block the writer.
 * - `synchronous = FULL`: every commit is fsync'd before it returns. In WAL mode
 *   NORMAL is crash-safe for the process but a power loss can undo the last
 *   commits, and a commit here says "these files are durable, state may advance";
 *   losing one while the sink keeps the files would only re-extract rows, but
 *   losing a manifest claim could list a file twice. Commits are a few per
 *   checkpoint, so FULL costs nothing measurable.
 * - File mode 0600 in a 0700 directory when created: state holds positions and
 *   content hashes, nobody else needs it.
 */
export function openStateDb(path: string, options: OpenStateDbOptions = {}): StateDb {
  const memory = path === ':memory:';
  const place = options.place ?? statePlace(path);
  let db: Database.Database;
  try {
    if (!memory) {
      if (!existsSync(dirname(path))) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
      chmodSync(path, 0o600);
    }
    db = new Database(path, { timeout: options.busyTimeoutMs ?? 5000 });
  } catch (error) {
    throw explainOpenError(error, place);
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    const version = runMigrations(db, path);
    if (!memory) compactWhenMostlyFree(db);
    return { db, path, version, close: () => db.close() };
  } catch (error) {
    db.close();
    if (error instanceof StateError) throw error;
    throw explainOpenError(error, place);
  }
}
