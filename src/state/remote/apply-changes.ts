import type Database from 'better-sqlite3';
import { DELETED_TABLE, keyValues, quoted, tableKeys } from './table-keys.js';
import { copiedColumns } from './track-changes.js';

/**
 * Applies one change file (track-changes.ts) to a copy of the state: its
 * deleted keys removed, its rows written over the copy's, in one transaction,
 * so a copy is either at the change file's moment or still at the one before.
 * Foreign keys are checked at the commit, on the whole result (a change file
 * lists rows by table, not in the order they were written).
 */
export function applyChanges(db: Database.Database, path: string): { rows: number } {
  db.prepare('ATTACH DATABASE ? AS change_file').run(path);
  try {
    const main = new Map(tableKeys(db).map((t) => [t.table, t]));
    const inFile = tableKeys(db, 'change_file').filter((t) => t.table !== DELETED_TABLE);
    let rows = 0;
    db.transaction(() => {
      db.pragma('defer_foreign_keys = ON');
      for (const keys of main.values()) {
        const { key } = keys;
        rows += db
          .prepare(
            `DELETE FROM main.${quoted(keys.table)} WHERE (${key.map(quoted).join(', ')}) IN
             (SELECT ${keyValues(key, 'pk')} FROM change_file.${DELETED_TABLE} WHERE tbl = ?)`,
          )
          .run(keys.table).changes;
      }
      for (const { table } of inFile) {
        const keys = main.get(table);
        if (!keys) throw new RangeError(`a change file holds rows of a table the state does not have: ${table}`);
        const columns = copiedColumns(keys).map(quoted).join(', ');
        rows += db
          .prepare(
            `INSERT OR REPLACE INTO main.${quoted(table)} (${columns}) SELECT ${columns} FROM change_file.${quoted(table)}`,
          )
          .run().changes;
      }
    })();
    return { rows };
  } finally {
    db.exec('DETACH DATABASE change_file');
  }
}
