import type Database from 'better-sqlite3';

/** A table of the state database as its change files describe it: its columns and what identifies a row. */
export interface TableKeys {
  table: string;
  columns: string[];
  /** The primary key's columns in key order; `rowid` for a table that declares none. */
  key: string[];
}

/** Name of the table, in a change file, of the rows deleted since the last one (never a state table's name). */
export const DELETED_TABLE = '__deleted__';

/** `name` as an SQL identifier. */
export function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `json_extract(<from>, '$[i]')` for each key column: the key values a change file stores as one JSON array. */
export function keyValues(key: readonly string[], from: string): string {
  return key.map((_, i) => `json_extract(${from}, '$[${i}]')`).join(', ');
}

/** `(a, b) = (x, y)` style match of a table's key columns (alias `m`) against a JSON key in `from`. */
export function keyMatch(key: readonly string[], from: string): string {
  return key.map((column, i) => `m.${quoted(column)} = json_extract(${from}, '$[${i}]')`).join(' AND ');
}

/** Every table of the main database (SQLite's own excepted), with its columns and key. */
export function tableKeys(db: Database.Database, schema = 'main'): TableKeys[] {
  const tables = db
    .prepare<[], { name: string }>(
      `SELECT name FROM ${quoted(schema)}.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`,
    )
    .all()
    .map((r) => r.name);
  return tables.map((table) => {
    const info = db
      .prepare<[], { name: string; pk: number }>(`PRAGMA ${quoted(schema)}.table_info(${quoted(table)})`)
      .all();
    const key = info
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    return { table, columns: info.map((c) => c.name), key: key.length > 0 ? key : ['rowid'] };
  });
}
