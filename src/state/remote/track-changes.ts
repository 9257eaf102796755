import type Database from 'better-sqlite3';
import { DELETED_TABLE, keyMatch, quoted, type TableKeys, tableKeys } from './table-keys.js';

/**
 * Which rows of the state database changed since it was last copied to object
 * storage, so that an upload sends those rows (a change file) instead of the
 * whole database (docs/state.md › State in object storage).
 *
 * Temporary triggers on every table note the key of each row inserted, updated
 * or deleted in `temp.state_changes`, in the same transaction as the write, so
 * a noted change is exactly a committed one. Nothing of this is in the state
 * file: the triggers and the notes live in the connection's temporary database
 * (a file of its own, small page cache), and a later connection (a run that
 * downloads the state) starts with none.
 *
 * A change file is itself a small SQLite database: for each table that
 * changed, its changed rows as they are now (in a table of the same name), and
 * in `__deleted__` the keys (JSON arrays) of rows that are gone. Reading the
 * rows and writing the file happen in one synchronous step on the connection
 * that writes the state, so the file is the state as of one moment between two
 * transactions. A row inserted and deleted again since the last copy was never
 * in it, and is left out.
 */
export interface ChangeTracker {
  /** The last change noted so far: a copy made now holds everything up to it. */
  mark(): number;
  /**
   * Writes the rows changed after the last forget() and up to now into a new
   * change file at `path`; returns the mark it covers and how many rows it
   * holds, or undefined when nothing changed (no file is written).
   */
  writeChanges(path: string): { upTo: number; rows: number } | undefined;
  /** The copy made at `upTo` is safe in object storage: forgets the changes it holds. */
  forget(upTo: number): void;
}

/** Page size of change files: most are a few rows, and each table of one takes at least a page. */
const CHANGE_FILE_PAGE_SIZE = 1024;

function json(columns: readonly string[], row: 'NEW' | 'OLD'): string {
  return `json_array(${columns.map((c) => `${row}.${quoted(c)}`).join(', ')})`;
}

function triggersFor({ table, key }: TableKeys): string {
  const t = quoted(table);
  const name = (what: string) => quoted(`state_changes_${what}_${table}`);
  const note = (row: 'NEW' | 'OLD', op: string) =>
    `INSERT INTO temp.state_changes (tbl, pk, op) VALUES (${literal(table)}, ${json(key, row)}, '${op}');`;
  const keyMoved = key.map((c) => `OLD.${quoted(c)} IS NOT NEW.${quoted(c)}`).join(' OR ');
  return `
    CREATE TEMP TRIGGER ${name('i')} AFTER INSERT ON main.${t} BEGIN ${note('NEW', 'i')} END;
    CREATE TEMP TRIGGER ${name('u')} AFTER UPDATE ON main.${t} BEGIN ${note('NEW', 'u')} END;
    CREATE TEMP TRIGGER ${name('m')} AFTER UPDATE ON main.${t} WHEN ${keyMoved} BEGIN ${note('OLD', 'u')} END;
    CREATE TEMP TRIGGER ${name('d')} AFTER DELETE ON main.${t} BEGIN ${note('OLD', 'd')} END;
  `;
}

/** SQL string literal. */
function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** The columns a change file copies: every column, and the rowid of a table that has no key of its own. */
export function copiedColumns({ columns, key }: TableKeys): string[] {
  return key[0] === 'rowid' && key.length === 1 ? ['rowid', ...columns] : columns;
}

function writeTable(db: Database.Database, keys: TableKeys): number {
  const { table, key } = keys;
  const columns = copiedColumns(keys);
  const t = quoted(table);
  const only = `k.tbl = ${literal(table)}`;
  db.exec(`CREATE TABLE change_file.${t} (${columns.map(quoted).join(', ')})`);
  const rows = db
    .prepare(
      `INSERT INTO change_file.${t} SELECT ${columns.map((c) => `m.${quoted(c)}`).join(', ')}
       FROM temp.state_change_keys k CROSS JOIN main.${t} m ON ${keyMatch(key, 'k.pk')} WHERE ${only}`,
    )
    .run().changes;
  const gone = db
    .prepare(
      `INSERT INTO change_file.${DELETED_TABLE} (tbl, pk) SELECT k.tbl, k.pk FROM temp.state_change_keys k
       WHERE ${only} AND k.first_op <> 'i' AND NOT EXISTS (SELECT 1 FROM main.${t} m WHERE ${keyMatch(key, 'k.pk')})`,
    )
    .run().changes;
  return rows + gone;
}

/**
 * Starts noting the changes of every table of `db` (the state's own
 * connection; install after migrations, which change tables a copy made
 * before them does not describe row by row).
 */
export function trackChanges(db: Database.Database): ChangeTracker {
  const tables = tableKeys(db);
  // REPLACE conflict resolution deletes the row it replaces: with recursive triggers
  // that deletion is noted too, so a replaced row is never taken for a new one.
  db.pragma('recursive_triggers = ON');
  db.exec(`
    CREATE TEMP TABLE state_changes (seq INTEGER PRIMARY KEY, tbl TEXT NOT NULL, pk TEXT NOT NULL, op TEXT NOT NULL);
    ${tables.map(triggersFor).join('\n')}
  `);
  db.pragma('temp.cache_size = -2048');
  const last = db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM temp.state_changes');
  const forget = db.prepare<[number]>('DELETE FROM temp.state_changes WHERE seq <= ?');
  const byName = new Map(tables.map((t) => [t.table, t]));
  const any = db.prepare<[], { one: number }>('SELECT 1 AS one FROM temp.state_changes LIMIT 1');
  const mark = () => last.get()?.seq ?? 0;

  function writeChanges(path: string): { upTo: number; rows: number } | undefined {
    if (any.get() === undefined) return undefined;
    const upTo = mark();
    db.exec(`
      DROP TABLE IF EXISTS temp.state_change_keys;
      CREATE TEMP TABLE state_change_keys AS
        SELECT tbl, pk, op AS first_op, min(seq) AS first_seq FROM temp.state_changes GROUP BY tbl, pk;
    `);
    db.prepare('ATTACH DATABASE ? AS change_file').run(path);
    try {
      db.pragma(`change_file.page_size = ${CHANGE_FILE_PAGE_SIZE}`);
      // Written once, front to back: a small cache is enough, and a large one would only add to the RSS.
      db.pragma('change_file.cache_size = -2048');
      db.pragma('change_file.journal_mode = OFF');
      db.pragma('change_file.synchronous = OFF');
      db.exec(`CREATE TABLE change_file.${DELETED_TABLE} (tbl TEXT NOT NULL, pk TEXT NOT NULL)`);
      const touched = db.prepare<[], { tbl: string }>('SELECT DISTINCT tbl FROM temp.state_change_keys').all();
      let rows = 0;
      for (const { tbl } of touched) {
        const keys = byName.get(tbl);
        if (keys) rows += writeTable(db, keys);
      }
      return { upTo, rows };
    } finally {
      db.exec('DETACH DATABASE change_file; DROP TABLE IF EXISTS temp.state_change_keys;');
    }
  }

  return { mark, writeChanges, forget: (upTo) => void forget.run(upTo) };
}
