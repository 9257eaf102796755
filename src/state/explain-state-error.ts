import { HelpdeskSyncError, StateCorruptError, StateStorageError } from '../errors.js';
import { explainPathError, whyNotWritable } from '../path-problem.js';

/** Where a database lives, for the words of an error: its path and the setting it comes from. */
export interface DatabasePlace {
  /** What it is, e.g. `state database`, `scratch database`. */
  what: string;
  path: string;
  /** The config key the path comes from, e.g. `state.path`. */
  setting: string;
  /** Said after a corruption: how to get going again. Omitted for files nothing depends on. */
  recovery?: string;
}

/** SQLite's extended result code (better-sqlite3's SqliteError carries it as `code`). */
function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/**
 * A raw SQLite error from a database, as a typed state error that names the
 * file, the setting it comes from and the real cause (corrupt, disk full,
 * read-only, a file in the way), with the recovery for a corrupt state. Any
 * other error is returned as it is: only SQLite's own codes say for sure which
 * file failed.
 */
export function explainStateError(error: unknown, place: DatabasePlace): unknown {
  if (error instanceof HelpdeskSyncError) return error;
  const at = `${place.what} ${place.path} (${place.setting})`;
  const message = error instanceof Error ? error.message : String(error);
  const code = sqliteCode(error);
  if (code?.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new StateCorruptError(`${at} is corrupted (${message})${place.recovery ? `. ${place.recovery}` : ''}`, {
      cause: error,
    });
  }
  if (code === 'SQLITE_FULL') {
    return new StateStorageError(`${at}: no space left on device (${message}); free space there and run again`, {
      cause: error,
    });
  }
  if (code?.startsWith('SQLITE_READONLY') || code?.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') {
    const why = whyNotWritable(place.path);
    return new StateStorageError(`${at} cannot be used: ${why ? `${why} (${message})` : message}`, { cause: error });
  }
  return error;
}

/** An error opening a database: a file-system error (the file or its directory) or a SQLite one. */
export function explainOpenError(error: unknown, place: DatabasePlace): unknown {
  if (sqliteCode(error) || error instanceof HelpdeskSyncError) return explainStateError(error, place);
  return new StateStorageError(
    `${place.what} ${place.path} (${place.setting}) cannot be opened: ${explainPathError(error, place.path)}`,
    {
      cause: error,
    },
  );
}

/**
 * SQLite's quick_check over the whole file (what `check` does: a run would
 * meet a damaged page only when it reads it). Throws StateCorruptError naming
 * the place; reads every page once, about a second per few hundred MB.
 */
export function verifyIntegrity(
  db: { pragma(source: string, options: { simple: true }): unknown },
  place: DatabasePlace,
): void {
  let result: unknown;
  try {
    result = db.pragma('quick_check', { simple: true });
  } catch (error) {
    throw explainStateError(error, place);
  }
  if (result !== 'ok') {
    throw new StateCorruptError(
      `${place.what} ${place.path} (${place.setting}) is corrupted (quick_check: ${String(result)})${place.recovery ? `. ${place.recovery}` : ''}`,
    );
  }
}

/** What to do about a corrupt state database: it only remembers; the output is what matters. */
export function stateRecovery(path: string): string {
  return (
    `The output already written is not affected. To start again: move the file away ` +
    `(mv ${path} ${path}.corrupt, with its -wal and -shm files) and run sync: the next run starts ` +
    'from an empty state and writes every row again (duplicates merge on primary keys); ' +
    'or restore a copy of the state and run sync'
  );
}
