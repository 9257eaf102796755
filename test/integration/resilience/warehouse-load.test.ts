import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_NAMES, type TableName } from '../../../src/output/tables.js';
import { assertValidRow, loadSchemaValidators } from '../output/support/schema-validator.js';
import { api, type SyncEnv, startSyncEnv } from '../sync/support.js';
import { runBuiltCli, touchConversations, walkFiles } from './support.js';

/**
 * Real sync output (two runs: a first sync, then changes, trash and a force
 * delete so tombstones exist) checked against the warehouse contract as shipped:
 * every row of every file validated with ajv against schemas/<table>.json, and
 * the first run loaded into DuckDB tables created by `schemas --format duckdb`,
 * each value cast to its DDL column type. Nothing here names a column: the
 * columns come from the generated DDL and the schema files.
 */
let env: SyncEnv;
let instance: DuckDBInstance;
let db: DuckDBConnection;
const files: Record<string, Array<{ path: string; run: string; lines: string[] }>> = {};
let firstRun = '';
let emptyDir = '';

const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
const query = async (sql: string) => (await db.runAndReadAll(sql)).getRowObjectsJson();

beforeAll(async () => {
  env = await startSyncEnv({ seed: 34, conversations: 90 });
  const first = await env.sync();
  firstRun = first.summary.run_id;
  await touchConversations(env, 4, 'changed for the warehouse');
  const body = (await api(env.sandbox, 'POST', '/search', { page: 1, per_page: 100 })) as {
    data: { conversations: { data: Array<{ id: string }> } };
  };
  const [trashed, destroyed] = body.data.conversations.data.slice(10);
  await api(env.sandbox, 'DELETE', `/conversation/${trashed!.id}`);
  await api(env.sandbox, 'DELETE', `/conversation/${destroyed!.id}`);
  await api(env.sandbox, 'DELETE', `/conversation/${destroyed!.id}/force-delete`);
  await env.sync();
  for (const path of walkFiles(env.outDir)) {
    const key = relative(env.outDir, path);
    if (!key.endsWith('.jsonl.gz') || key.startsWith('_')) continue;
    const table = key.split('/')[0] as string;
    const lines = gunzipSync(readFileSync(path)).toString('utf8').split('\n').filter(Boolean);
    files[table] = [...(files[table] ?? []), { path, run: key.split('/').at(-1) as string, lines }];
  }
  // The printed script loads files as well as creating tables. Its load recipes
  // point at an empty directory of this test (each file is inserted below, one
  // at a time), never at ./out in the working directory, which a user's run fills.
  emptyDir = mkdtempSync(join(tmpdir(), 'warehouse-load-'));
  const ddl = await runBuiltCli(['schemas', '--format', 'duckdb', '--location', emptyDir]);
  if (ddl.code !== 0) throw new Error(`schemas --format duckdb failed: ${ddl.stderr}`);
  instance = await DuckDBInstance.create(':memory:');
  db = await instance.connect();
  await db.run(ddl.stdout);
});

afterAll(async () => {
  db?.closeSync();
  instance?.closeSync();
  await env?.close();
  if (emptyDir) rmSync(emptyDir, { recursive: true, force: true });
});

/** The generated DDL's columns of `table`, in order, with their DuckDB types. */
async function ddlColumns(table: string): Promise<Array<{ name: string; type: string }>> {
  const rows = await query(
    `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ${sqlString(table)} ORDER BY ordinal_position`,
  );
  return rows.map((r) => ({ name: String(r.column_name), type: String(r.data_type) }));
}

describe('real sync output against the warehouse contract', () => {
  it('the output has rows for most tables, and tombstones', () => {
    const withRows = TABLE_NAMES.filter((t) => (files[t] ?? []).some((f) => f.lines.length > 0));
    expect(withRows.length).toBeGreaterThanOrEqual(TABLE_NAMES.length - 1);
    const tombstones = Object.values(files)
      .flat()
      .flatMap((f) => f.lines)
      .filter((l) => (JSON.parse(l) as { _deleted?: boolean })._deleted === true);
    expect(tombstones.length).toBeGreaterThan(0);
  });

  it('every row of every file validates against its table schema (ajv)', () => {
    const validators = loadSchemaValidators();
    let rows = 0;
    for (const [table, list] of Object.entries(files)) {
      expect(TABLE_NAMES).toContain(table);
      for (const file of list) {
        for (const line of file.lines) {
          assertValidRow(validators, table as TableName, JSON.parse(line));
          rows += 1;
        }
      }
    }
    expect(rows).toBeGreaterThan(500);
  });

  it.each(TABLE_NAMES)(
    '%s: the first run loads into the generated DuckDB table, every value cast to its column type',
    async (table) => {
      const columns = await ddlColumns(table);
      expect(columns.length, `the DDL creates ${table}`).toBeGreaterThan(0);
      const list = (files[table] ?? []).filter((f) => f.run.startsWith(firstRun));
      const expected = list.reduce((n, f) => n + f.lines.length, 0);
      if (list.length > 0) {
        const spec = columns.map((c) => `${sqlString(c.name)}: ${sqlString(c.type)}`).join(', ');
        const paths = `[${list.map((f) => sqlString(f.path)).join(', ')}]`;
        // Explicit columns: a value that does not fit its DDL type fails the load instead of being guessed.
        await db.run(
          `INSERT INTO ${table} SELECT ${columns.map((c) => `"${c.name}"`).join(', ')} FROM read_json(${paths}, format = 'newline_delimited', columns = {${spec}})`,
        );
      }
      const [{ n }] = (await query(`SELECT count(*)::INTEGER AS n FROM ${table}`)) as [{ n: number }];
      expect(n).toBe(expected);
      // Every row's keys are exactly the DDL's columns: nothing dropped, nothing unknown.
      for (const file of list) {
        for (const line of file.lines)
          expect(Object.keys(JSON.parse(line)).sort()).toEqual(columns.map((c) => c.name).sort());
      }
    },
  );
});
