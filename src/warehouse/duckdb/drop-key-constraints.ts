import { LoadError } from '../../errors.js';
import { TABLE_NAMES } from '../../output/tables.js';

/** The keyed tables of this database that still have a PRIMARY KEY constraint, with the statement that created each. */
const KEYED_WITH_CONSTRAINT = `SELECT c.table_name, t.sql, c.constraint_column_names AS keys FROM duckdb_constraints() c
JOIN duckdb_tables() t ON t.database_name = c.database_name AND t.schema_name = c.schema_name AND t.table_name = c.table_name
WHERE c.database_name = current_database() AND c.schema_name = 'main' AND c.constraint_type = 'PRIMARY KEY'
  AND c.table_name IN (${TABLE_NAMES.map((t) => `'${t}'`).join(', ')})
ORDER BY c.table_name`;

/**
 * The statements that rebuild a keyed table an earlier version created with a
 * PRIMARY KEY constraint as the same table without it (DuckDB cannot drop a
 * constraint): the same columns in the same order with the same types, the key
 * columns still NOT NULL, the same rows. DuckDB's ART index behind the
 * constraint must be held in memory whole, which no memory limit can bound, and
 * the merge keeps the key unique without it (duckdb-merge.ts). `created` is the
 * table's statement as DuckDB keeps it (`duckdb_tables().sql`).
 */
export function dropKeyConstraint(table: string, created: string, keys: readonly string[]): string[] {
  const rebuilt = `${table}__unkeyed`;
  const head = new RegExp(`^CREATE TABLE (?:main\\.)?"?${table}"?\\s*\\(`, 'i');
  // The key as a table constraint (as the DDL wrote it), or after its column (as a person may have).
  const unkeyed = created.replace(/,\s*PRIMARY KEY\s*\([^)]*\)/i, '').replace(/ PRIMARY KEY(?=[\s,)])/i, '');
  if (!head.test(created) || /PRIMARY KEY/i.test(unkeyed)) {
    throw new LoadError(
      `cannot rebuild ${table} without its PRIMARY KEY constraint: unexpected table definition ${created}`,
    );
  }
  return [
    `DROP TABLE IF EXISTS ${rebuilt}`,
    unkeyed.replace(head, `CREATE TABLE ${rebuilt}(`),
    // DuckDB's statement leaves out the NOT NULL a primary key implies.
    ...keys.map((k) => `ALTER TABLE ${rebuilt} ALTER COLUMN "${k}" SET NOT NULL`),
    `INSERT INTO ${rebuilt} SELECT * FROM ${table}`,
    `DROP TABLE ${table}`,
    `ALTER TABLE ${rebuilt} RENAME TO ${table}`,
  ];
}

/** What dropKeyConstraints needs of a connection. */
export interface DuckdbStatements {
  run(sql: string): Promise<unknown>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
}

/**
 * Rebuilds, in one transaction, every keyed table that still has its PRIMARY KEY
 * constraint (a warehouse an earlier version made); a crash leaves them as they
 * were. Once, at the first load: a table rebuilt has no constraint left. Returns
 * the tables rebuilt.
 */
export async function dropKeyConstraints(db: DuckdbStatements): Promise<string[]> {
  const keyed = await db.rows(KEYED_WITH_CONSTRAINT);
  if (keyed.length === 0) return [];
  await db.run('BEGIN TRANSACTION');
  try {
    for (const { table_name, sql, keys } of keyed) {
      for (const statement of dropKeyConstraint(String(table_name), String(sql), keys as string[])) {
        await db.run(statement);
      }
    }
    await db.run('COMMIT');
  } catch (error) {
    await db.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return keyed.map((k) => String(k.table_name));
}
