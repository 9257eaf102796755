/**
 * The session `load` runs DuckDB's statements through (their tasks executed on the
 * JavaScript thread, src/warehouse/duckdb/duckdb-session.ts), against a real
 * in-memory DuckDB: the same rows and the same error text as the driver's own
 * `run`, several statements in one text, bound parameters. What it is for (one
 * allocator arena, a lower peak RSS) is measured by `npm run bench -- load`.
 */
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DuckdbSession, duckdbSession } from '../../../src/warehouse/duckdb/duckdb-session.js';

let instance: DuckDBInstance;
let connection: DuckDBConnection;
let session: DuckdbSession;

beforeEach(async () => {
  instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  connection = await instance.connect();
  session = duckdbSession(connection);
});

afterEach(() => {
  connection.closeSync();
  instance.closeSync();
});

/** The driver's message for `sql` (through its own `run`), or undefined when it runs. */
async function driverError(sql: string): Promise<string | undefined> {
  const other = await instance.connect();
  try {
    await other.run(sql);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    other.closeSync();
  }
}

describe('duckdbSession', () => {
  it('runs every statement of a text in order and reads the last one', async () => {
    await session.run(
      'CREATE TABLE t (a INTEGER, b VARCHAR); INSERT INTO t VALUES (1, $$x$$); INSERT INTO t VALUES (2, NULL)',
    );
    const reader = await session.read('INSERT INTO t VALUES (3, $$z$$); SELECT a, b FROM t ORDER BY a');
    expect(reader.getRows()).toEqual([
      [1, 'x'],
      [2, null],
      [3, 'z'],
    ]);
  });

  it('binds parameters to the last statement', async () => {
    await session.run('CREATE TABLE t (a INTEGER, b VARCHAR)');
    await session.run('INSERT INTO t VALUES ($1, $2)', [7, 'seven']);
    expect((await session.read('SELECT b FROM t WHERE a = $1', [7])).getRowObjectsJson()).toEqual([{ b: 'seven' }]);
  });

  it('reads as many rows as the driver does, past one chunk', async () => {
    const sql = 'SELECT range AS n, range::VARCHAR AS s FROM range(100000)';
    const ours = (await session.read(sql)).getRows();
    const theirs = (await connection.runAndReadAll(sql)).getRows();
    expect(ours.length).toBe(100_000);
    expect(ours).toEqual(theirs);
  });

  it.each([
    ['a value that does not convert (found while the statement runs)', "SELECT CAST('x' AS INTEGER)"],
    ['a syntax error (found when the text is split)', 'SELEC 1'],
    ['a missing table (found when the statement is prepared)', 'SELECT * FROM nowhere'],
    ['a file that is not there (found when the reader is bound)', "SELECT * FROM read_json('/nonexistent/x.json')"],
  ])('fails with the very message the driver gives: %s', async (_what, sql) => {
    const expected = await driverError(sql);
    expect(expected).toBeDefined();
    await expect(session.run(sql)).rejects.toThrow(expected);
    const error = await session.run(sql).catch((e: Error) => e);
    expect((error as Error).message).toBe(expected);
  });
});
