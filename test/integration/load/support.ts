import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { PGlite } from '@electric-sql/pglite';
import type { Manifest } from '../../../src/output/manifest.js';
import { METADATA_COLUMN_SPECS } from '../../../src/output/rows/metadata-columns.js';
import { TABLE_SPECS } from '../../../src/output/rows/table-specs.js';
import { TABLES, type TableName } from '../../../src/output/tables.js';
import type { SqlConnection } from '../../../src/warehouse/postgres/sql-connection.js';
import { merged, type Row, readTables } from '../sync/support.js';

/** PGlite (PostgreSQL 18 in WASM) behind the loader's connection interface: the same statements as the pg driver. */
export function pgliteConnection(pg: PGlite): SqlConnection {
  return {
    query: async <T extends Record<string, unknown>>(sql: string, params?: unknown[]) =>
      (await pg.query<T>(sql, params)).rows,
    exec: async (sql: string) => {
      await pg.exec(sql);
    },
    close: async () => undefined,
  };
}

/** Runs one SQL query on a warehouse and returns its rows as plain objects. */
export type ReadRows = (sql: string) => Promise<Row[]>;

export type Dialect = 'duckdb' | 'postgres';

/** The target's tables in its own schema (not a session's temporary ones), by name. */
export async function tablesOf(dialect: Dialect, read: ReadRows): Promise<string[]> {
  const rows = await read(
    dialect === 'duckdb'
      ? "SELECT table_name AS t FROM duckdb_tables() WHERE schema_name = 'main' AND NOT temporary"
      : "SELECT relname AS t FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace",
  );
  return rows.map((r) => String(r.t));
}

/** A DuckDB file opened for the test's queries (closed after `use`: a load needs the file's lock). */
export async function withDuckdb<T>(path: string, use: (read: ReadRows) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    return await use(async (sql) => (await connection.runAndReadAll(sql)).getRowObjectsJson() as Row[]);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** A PostgreSQL database reached over its connection string for the test's queries (closed after `use`). */
export async function withPostgres<T>(url: string, use: (read: ReadRows) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(async (sql) => (await client.query(sql)).rows as Row[]);
  } finally {
    await client.end();
  }
}

function columnsOf(table: TableName) {
  return [...TABLE_SPECS[table].columns, ...METADATA_COLUMN_SPECS];
}

const keyOf = (table: TableName, row: Row) => TABLES[table].map((c) => String(row[c])).join('|');

/**
 * A warehouse table as JSON documents keyed by primary key (of one account): timestamps as epoch
 * milliseconds and dates as text, everything else as the warehouse's JSON of it,
 * so DuckDB, PostgreSQL and the output files compare field by field.
 */
export async function warehouseDocs(
  dialect: Dialect,
  read: ReadRows,
  table: string,
  of: TableName,
): Promise<Map<string, Row>> {
  const docs = await warehouseRows(dialect, read, table, of);
  return new Map(docs.map((d) => [keyOf(of, d), d]));
}

/** The rows of a warehouse table as warehouseDocs gives them, every row (of every account). */
export async function warehouseRows(dialect: Dialect, read: ReadRows, table: string, of: TableName): Promise<Row[]> {
  const epoch = (c: string) => (dialect === 'duckdb' ? `epoch_ms(${c})` : `(extract(epoch FROM ${c}) * 1000)::bigint`);
  const list = columnsOf(of)
    .map((c) =>
      c.kind === 'timestamp'
        ? `${epoch(c.name)} AS ${c.name}`
        : c.kind === 'date'
          ? `${c.name}::text AS ${c.name}`
          : c.name,
    )
    .join(', ');
  const sql =
    dialect === 'duckdb'
      ? `SELECT to_json(x)::VARCHAR AS doc FROM (SELECT ${list} FROM ${table}) x`
      : `SELECT to_jsonb(x)::text AS doc FROM (SELECT ${list} FROM ${table}) x`;
  return (await read(sql)).map((r) => JSON.parse(String(r.doc)) as Row);
}

/** A file row in the form warehouseDocs gives: timestamps as epoch milliseconds. */
export function fileDoc(table: TableName, row: Row): Row {
  const out: Row = {};
  for (const c of columnsOf(table)) {
    const value = row[c.name] ?? null;
    out[c.name] = c.kind === 'timestamp' && value !== null ? Date.parse(value as string) : value;
  }
  return out;
}

/** The latest non-deleted version per key of `rows` (a table's rows of every file), as documents. */
export function latestDocs(table: TableName, rows: Row[] | undefined): Map<string, Row> {
  const latest = merged(rows, [...TABLES[table]]);
  return new Map([...latest.values()].map((row) => [keyOf(table, row), fileDoc(table, row)]));
}

/** What every keyed table must hold: the latest non-deleted version per key of every file written. */
export function expectedDocs(outDir: string, table: TableName): Map<string, Row> {
  return latestDocs(table, readTables(outDir)[table]);
}

/** Every manifest of an output directory, in load order: run_id's second, then started_at (runs of one second). */
export function manifestsOf(outDir: string): Manifest[] {
  const dir = join(outDir, '_manifests');
  const order = (m: Manifest) => `${m.run_id.slice(0, 16)} ${m.started_at}`;
  return readdirSync(dir)
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as Manifest)
    .sort((a, b) => order(a).localeCompare(order(b)));
}

/** Conversations as the API lists them, in the form warehouseDocs gives (embedded objects as their keys). */
export function apiConversationDocs(items: Row[]): Map<string, Row> {
  const spec = TABLE_SPECS.conversations.columns;
  const doc = (item: Row) =>
    Object.fromEntries(
      spec.map((c) => {
        const [root, field] = c.from ? c.from.split('.') : [c.name];
        const raw = field ? ((item[root!] as Row | null)?.[field] ?? null) : (item[root!] ?? null);
        return [c.name, c.kind === 'timestamp' && raw !== null ? Date.parse(raw as string) : raw];
      }),
    );
  return new Map(items.map((item) => [String(item.id), doc(item)]));
}

/** Only the table's own columns of a document (what the API knows: no run metadata). */
export function ownColumns(table: TableName, row: Row | undefined): Row | undefined {
  if (row === undefined) return undefined;
  return Object.fromEntries(TABLE_SPECS[table].columns.map((c) => [c.name, row[c.name]]));
}
