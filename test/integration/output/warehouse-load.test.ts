/**
 * Real sync output (two runs, with an update, a note, trash, restore, force-delete
 * and a merge between them) loaded through the warehouse scripts that
 * `schemas --format duckdb|postgres` prints: DuckDB by running the whole script
 * after each sync, PostgreSQL (PGlite: PostgreSQL 18 in WASM) by copying each
 * manifest's files into the landing table and running each table's recipe. Both
 * must end with exactly the latest non-deleted version of every key, equal field by
 * field to what the sandbox's API holds. The dbt staging models run on DuckDB (and,
 * to show the SQL is portable, on PostgreSQL) against the same keyed tables (dbt itself is a Python tool that cannot be
 * installed here; `{{ source() }}`/`{{ ref() }}` are resolved by the substitution in
 * `compileDbt` below, which is what dbt's compiler does for these two macros).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { PGlite } from '@electric-sql/pglite';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { renderSchemas, writeDbtProject } from '../../../src/cli/commands/schemas.js';
import type { Manifest } from '../../../src/output/manifest.js';
import { TABLE_NAMES, TABLES, type TableName } from '../../../src/output/tables.js';
import {
  DBT_DIR,
  DBT_NO_FRESHNESS,
  keyUniqueTestPath,
  stagingColumns,
  stagingModel,
} from '../../../src/warehouse/dbt-export.js';
import { DIALECTS } from '../../../src/warehouse/dialects.js';
import { renderWarehouseScript, warehouseScript } from '../../../src/warehouse/warehouse-script.js';
import { apiConversationDocs, ownColumns, warehouseDocs } from '../load/support.js';
import {
  allConversations,
  changeEveryWayOnOpen,
  merged,
  type Row,
  readTables,
  type SyncEnv,
  startSyncEnv,
} from '../sync/support.js';

let env: SyncEnv;
let duck: DuckDBInstance;
let db: DuckDBConnection;
let pg: PGlite;
let dbtDir: string;
const loadedManifests = new Set<string>();

const duckRows = async (sql: string) => (await db.runAndReadAll(sql)).getRowObjectsJson();
const duckCount = async (sql: string) => Number((await duckRows(`SELECT count(*)::INTEGER AS n FROM (${sql})`))[0]!.n);
const pgCount = async (sql: string) =>
  Number((await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) q`)).rows[0]!.n);

/** DuckDB: the whole printed script, as a user runs it after each sync. */
async function loadDuckdb(): Promise<void> {
  await db.run(renderSchemas('duckdb', undefined, { location: env.outDir }));
}

/** PostgreSQL: per manifest not loaded yet, in run_id order, per table: COPY its files, then the table's recipe. */
async function loadPostgres(): Promise<void> {
  const [setup, ...recipes] = warehouseScript(DIALECTS.postgres, TABLE_NAMES, env.outDir);
  await pg.exec(setup!.sql);
  const dir = join(env.outDir, '_manifests');
  for (const name of readdirSync(dir).sort()) {
    if (loadedManifests.has(name)) continue;
    const manifest = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Manifest;
    for (const recipe of recipes) {
      for (const file of manifest.files.filter((f) => f.table === recipe.name)) {
        // What `gunzip -c file | psql -c "\copy helpdesk_landing …"` does, through PGlite's /dev/blob.
        const blob = new Blob([gunzipSync(readFileSync(join(env.outDir, file.key)))]);
        await pg.query(
          "COPY helpdesk_landing (line) FROM '/dev/blob' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')",
          [],
          { blob },
        );
      }
      await pg.exec(recipe.sql);
    }
    loadedManifests.add(name);
  }
}

/** What a warehouse should hold: the latest non-deleted version per key, from every file written. */
function expected(table: TableName): Map<string, Row> {
  return merged(readTables(env.outDir)[table], [...TABLES[table]]);
}

/** dbt's compilation of the two macros the models use: sources are the keyed tables, refs the models' views. */
function compileDbt(sql: string): string {
  return sql
    .replace(/\{\{\s*source\('helpdesk',\s*'(\w+)'\)\s*\}\}/g, '$1')
    .replace(/\{\{\s*ref\('(\w+)'\)\s*\}\}/g, '$1');
}

beforeAll(async () => {
  env = await startSyncEnv({ seed: 23, conversations: 30 });
  duck = await DuckDBInstance.create(':memory:');
  db = await duck.connect();
  pg = new PGlite();
  dbtDir = mkdtempSync(join(tmpdir(), 'hs-dbt-'));

  expect((await env.sync()).summary.status).toBe('succeeded');
  await loadDuckdb();
  await loadPostgres();
  await changeEveryWayOnOpen(env.sandbox);
  expect((await env.sync()).summary.status).toBe('succeeded');
  await loadDuckdb();
  await loadPostgres();

  writeDbtProject(dbtDir);
  for (const table of TABLE_NAMES) {
    const sql = readFileSync(join(dbtDir, DBT_DIR, `${stagingModel(table)}.sql`), 'utf8');
    await db.run(`CREATE VIEW ${stagingModel(table)} AS ${compileDbt(sql)}`);
    await pg.exec(`CREATE VIEW ${stagingModel(table)} AS ${compileDbt(sql)}`);
  }
});

afterAll(async () => {
  db?.closeSync();
  duck?.closeSync();
  await pg?.close();
  await env?.sandbox.close();
  if (env) rmSync(env.dir, { recursive: true, force: true });
  if (dbtDir) rmSync(dbtDir, { recursive: true, force: true });
});

describe('real sync output through the printed warehouse scripts', () => {
  it('the two runs changed, trashed, deleted and merged conversations', () => {
    const rows = readTables(env.outDir).conversations!;
    expect(rows.some((r) => r._deleted === true)).toBe(true);
    expect(rows.some((r) => r.deleted_at !== null && r._deleted === false)).toBe(true);
    expect(readTables(env.outDir).thread_events!.some((r) => r._deleted === true)).toBe(true);
  });

  it.each(TABLE_NAMES)(
    '%s: DuckDB, PostgreSQL and the dbt model hold the latest non-deleted version per key',
    async (table) => {
      const want = expected(table).size;
      expect(want, 'the sync wrote rows of this table').toBeGreaterThan(0);
      expect(await duckCount(`SELECT * FROM ${table}`)).toBe(want);
      expect(await pgCount(`SELECT * FROM ${table}`)).toBe(want);
      expect(await duckCount(`SELECT * FROM ${stagingModel(table)}`)).toBe(want);
      expect(await pgCount(`SELECT * FROM ${stagingModel(table)}`)).toBe(want); // the same SQL runs on Postgres
      // The staging model is the keyed table, row for row (the keyed table also has _deleted, always false).
      const columns = stagingColumns(table).join(', ');
      const diff = `(SELECT ${columns} FROM ${table} EXCEPT SELECT ${columns} FROM ${stagingModel(table)})
      UNION ALL (SELECT ${columns} FROM ${stagingModel(table)} EXCEPT SELECT ${columns} FROM ${table})`;
      expect(await duckCount(diff)).toBe(0);
      // Direct load: no table keeps every version.
      expect(await duckCount(`SELECT * FROM duckdb_tables() WHERE table_name = '${table}_raw'`)).toBe(0);
      expect(await pgCount(`SELECT * FROM pg_tables WHERE tablename = '${table}_raw'`)).toBe(0);
    },
  );

  it('conversations equal the API field by field, in both warehouses', async () => {
    const fromApi = apiConversationDocs(await allConversations(env.sandbox));
    expect(fromApi.size).toBe(expected('conversations').size);
    // Timestamps as epoch milliseconds, the rest as JSON, so both engines read back alike.
    const inDuck = await warehouseDocs('duckdb', duckRows, 'conversations', 'conversations');
    const inPg = await warehouseDocs(
      'postgres',
      async (sql) => (await pg.query<Row>(sql)).rows,
      'conversations',
      'conversations',
    );
    for (const [id, want] of fromApi) {
      expect(ownColumns('conversations', inDuck.get(id)), `duckdb ${id}`).toEqual(want);
      expect(ownColumns('conversations', inPg.get(id)), `postgres ${id}`).toEqual(want);
    }
  });

  it('running the DuckDB script again loads no file twice and changes nothing', async () => {
    const counts = async () => {
      const all: number[] = [];
      for (const t of TABLE_NAMES) all.push(await duckCount(`FROM ${t}`));
      return all;
    };
    const before = await counts();
    await loadDuckdb();
    expect(await counts()).toEqual(before);
    const files = await duckCount('FROM helpdesk_loaded_files');
    const onDisk = readdirSync(env.outDir, { recursive: true }).filter(
      (p) => String(p).endsWith('.jsonl.gz') && !String(p).startsWith('_'),
    );
    expect(onDisk.length).toBeGreaterThan(TABLE_NAMES.length);
    expect(files).toBe(onDisk.length);
  });

  it('the --merge statements over every version (in the batch) agree with the incremental merges', async () => {
    for (const table of TABLE_NAMES) {
      const want = expected(table).size;
      // Every version of every file into the batch, as a whole reload would put them.
      await db.run(
        `DELETE FROM ${table}_batch; INSERT INTO ${table}_batch BY NAME SELECT * FROM read_${table}('${env.outDir}/${table}/*/*.jsonl.gz')`,
      );
      await pg.exec(`TRUNCATE ${table}_batch`);
      for (const key of readdirSync(join(env.outDir, table), { recursive: true }).map(String)) {
        if (!key.endsWith('.jsonl.gz')) continue;
        const blob = new Blob([gunzipSync(readFileSync(join(env.outDir, table, key)))]);
        await pg.query(
          "COPY helpdesk_landing (line) FROM '/dev/blob' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')",
          [],
          { blob },
        );
        await pg.query(`SELECT helpdesk_land('${table}_batch')`);
      }
      expect(await pgCount(`SELECT * FROM ${table}_batch`)).toBe(readTables(env.outDir)[table]!.length);
      // From empty keyed tables: the rows counted below are the ones these statements merged.
      await db.run(`DELETE FROM ${table}`);
      await pg.exec(`DELETE FROM ${table}`);
      await db.run(renderSchemas('duckdb', table, { merge: true }));
      await pg.exec(renderSchemas('postgres', table, { merge: true }));
      expect(await duckCount(`SELECT * FROM ${table}`)).toBe(want);
      expect(await pgCount(`SELECT * FROM ${table}`)).toBe(want);
    }
  });

  it('PostgreSQL keeps a bad line out, with its error, and still loads the rest of the file', async () => {
    const good = JSON.stringify({
      id: 'tag-good',
      inbox_id: 'i',
      name: 'x',
      color: '#000000',
      _synced_at: '2026-01-01T00:00:00.000Z',
      _run_id: 'r',
      _deleted: false,
      _extra: null,
      _account: 'acme',
    });
    const nul = good.replace('tag-good', 'tag-nul').replace('"x"', '"a\\u0000b"');
    const blob = new Blob([`${good}\n${nul}\n{not json\n`]);
    await pg.exec('DELETE FROM tags_batch');
    await pg.query(
      "COPY helpdesk_landing (line) FROM '/dev/blob' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')",
      [],
      { blob },
    );
    const moved = await pg.query<{ n: number }>("SELECT helpdesk_land('tags_batch')::int AS n");
    expect(moved.rows[0]!.n).toBe(1);
    expect((await pg.query('SELECT id FROM tags_batch')).rows).toEqual([{ id: 'tag-good' }]);
    const errors = await pg.query<{ line: string; error: string }>('SELECT line, error FROM helpdesk_load_errors');
    expect(errors.rows.map((e) => e.line)).toEqual([nul, '{not json']);
    expect(errors.rows[0]!.error).toMatch(/Unicode escape/);
    expect(await pgCount('SELECT * FROM helpdesk_landing')).toBe(0);
    await pg.exec('DELETE FROM tags_batch; DELETE FROM helpdesk_load_errors');
  });

  it('the DuckDB script runs where no table has files yet, and loads nothing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'hs-empty-'));
    const other = await DuckDBInstance.create(':memory:');
    const conn = await other.connect();
    try {
      await conn.run(renderWarehouseScript(DIALECTS.duckdb, TABLE_NAMES, empty));
      const rows = (await conn.runAndReadAll('SELECT count(*)::INTEGER AS n FROM conversations')).getRowObjectsJson();
      expect(rows).toEqual([{ n: 0 }]);
    } finally {
      conn.closeSync();
      other.closeSync();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('every row of every file is valid for a default ajv and schemas/<table>.json', () => {
    const ajv = new Ajv2020();
    const schemas = join(import.meta.dirname, '..', '..', '..', 'schemas');
    const tables = readTables(env.outDir);
    for (const table of TABLE_NAMES) {
      const validate = ajv.compile(JSON.parse(readFileSync(join(schemas, `${table}.json`), 'utf8')));
      for (const row of tables[table]!) expect(validate(row) ? null : validate.errors, `${table} ${row.id}`).toBeNull();
    }
  });

  it('the dbt fragment: sources with freshness on _synced_at, key tests that hold on the data', async () => {
    const sources = parseYaml(readFileSync(join(dbtDir, DBT_DIR, '_helpdesk__sources.yml'), 'utf8')) as {
      sources: [
        {
          config: { loaded_at_field: string; freshness: unknown };
          tables: {
            name: string;
            identifier: string;
            config?: { freshness?: unknown };
            columns: { name: string; description: string }[];
          }[];
        },
      ];
    };
    const [source] = sources.sources;
    expect(source.config.loaded_at_field).toBe('_synced_at');
    expect(source.config.freshness).toBeTruthy();
    expect(source.tables.map((t) => [t.name, t.identifier])).toEqual(TABLE_NAMES.map((t) => [t, t]));
    // Settings tables change rarely: no freshness there (null overrides the source's).
    const off = source.tables.filter((t) => t.config && t.config.freshness === null).map((t) => t.name);
    expect(off).toEqual([...DBT_NO_FRESHNESS]);
    expect(off).not.toContain('conversations');
    for (const t of source.tables) for (const c of t.columns) expect(c.description, `${t.name}.${c.name}`).not.toBe('');
    const models = parseYaml(readFileSync(join(dbtDir, DBT_DIR, '_helpdesk__models.yml'), 'utf8')) as {
      models: { name: string; columns: { name: string; data_tests?: string[] }[] }[];
    };
    for (const model of models.models) {
      const table = model.name.replace('stg_helpdesk__', '') as TableName;
      for (const column of model.columns.filter((c) => c.data_tests)) {
        // dbt's unique and not_null tests, as the SQL they compile to: no failing rows.
        if (column.data_tests!.includes('not_null'))
          expect(await duckCount(`SELECT * FROM ${model.name} WHERE ${column.name} IS NULL`)).toBe(0);
        if (column.data_tests!.includes('unique'))
          expect(await duckCount(`SELECT ${column.name} FROM ${model.name} GROUP BY 1 HAVING count(*) > 1`)).toBe(0);
      }
      // Every key names its account first: not_null on each part, uniqueness from the table's singular test.
      expect(model.columns.filter((c) => c.data_tests).map((c) => c.name)).toEqual([...TABLES[table], '_account']);
      const singular = readFileSync(join(dbtDir, keyUniqueTestPath(table)), 'utf8');
      expect(singular).toContain(`group by _account, ${TABLES[table].join(', ')}`);
      expect(await duckCount(compileDbt(singular))).toBe(0);
    }
  });
});
