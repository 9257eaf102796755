import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openStateDb, type StateDb, statePlace } from './database.js';
import { type DatabasePlace, explainOpenError, explainStateError } from './explain-state-error.js';
import { LATEST_VERSION, runMigrations } from './migrations.js';

/**
 * True when no state file is at `path` yet. Anything else that keeps it from
 * being read (a file where a folder of its path should be, no permission) is
 * the error a sync would meet too, said now.
 */
export function stateAbsent(path: string, place: DatabasePlace = statePlace(path)): boolean {
  try {
    statSync(path);
    return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw explainOpenError(error, place);
  }
}

/** Every write refused on the connection: a command that only reads cannot change the state by mistake. */
function readOnly(state: StateDb): StateDb {
  state.db.pragma('query_only = ON');
  return state;
}

/**
 * The state at `path` opened for reading only (`check`, `state show`, `verify`,
 * `plan`, `report`, the daemon's status page): nothing on disk changes.
 *
 * - No state yet: an empty state in memory, migrated, so a command reads it as a
 *   first sync would find it, and no file or folder is created.
 * - A state of this binary's schema: opened in place without creating, migrating,
 *   compacting or changing the mode of anything. SQLite keeps its `-wal` and
 *   `-shm` beside the file while the connection is open and removes them when the
 *   last connection closes, as it does for every reader.
 * - A state of an older schema: copied (VACUUM INTO, which reads the file) into
 *   a private temporary folder and migrated there, removed on close.
 * - A newer schema is refused as openStateDb refuses it.
 */
export function readStateDb(path: string, place: DatabasePlace = statePlace(path)): StateDb {
  if (stateAbsent(path, place)) return readOnly(openStateDb(':memory:'));
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true, timeout: 5000 });
  } catch (error) {
    throw explainOpenError(error, place);
  }
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > LATEST_VERSION) runMigrations(db, path);
    if (version >= LATEST_VERSION) {
      db.pragma('foreign_keys = ON');
      return readOnly({ db, path, version, close: () => db.close() });
    }
    const dir = mkdtempSync(join(tmpdir(), 'helpdesk-sync-state-read-'));
    const copy = join(dir, 'state.sqlite');
    db.prepare('VACUUM INTO ?').run(copy);
    db.close();
    const migrated = openStateDb(copy, { place });
    return readOnly({
      ...migrated,
      close: () => {
        migrated.close();
        rmSync(dir, { recursive: true, force: true });
      },
    });
  } catch (error) {
    if (db.open) db.close();
    throw explainStateError(error, place);
  }
}
