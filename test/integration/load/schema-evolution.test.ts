/**
 * Upgrading a warehouse across the schema sets of the changelog: each earlier
 * set's tables are built with the DDL that set printed (test/fixtures/schema-sets/),
 * `_raw` and `_batch` with the same columns, and filled with rows of that set's
 * shape; then today's manifests (two real syncs against the sandbox) are loaded
 * over them, into DuckDB and a real PostgreSQL server.
 * - evolve: no hand-written SQL; new columns added (`_account` given to every
 *   stored row: the account of the pipeline that wrote it), changed types
 *   converted in place, PostgreSQL's primary keys moved to (`_account`, …), and
 *   every keyed table ends equal to the files field by field;
 * - a warehouse `load` filled with the set before (its helpdesk_pipelines
 *   naming the organization) takes the next manifest with no key changed;
 * - output written before `_account` was loads, its rows given their account;
 * - a warehouse with `_raw` (loaded before direct load) keeps being fed, its
 *   empty `_batch` working tables dropped; a new one has neither;
 * - freeze: refused before any row, every difference in one message;
 * - a stored value that would not convert: refused before any row, naming it,
 *   with the statements that fix it; once they are run, the load goes through.
 */

import { createHash } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { loadJob } from '../../../src/load/load-job.js';
import type { LoadSummary } from '../../../src/load/load-summary.js';
import { silentLogger } from '../../../src/log.js';
import type { Manifest } from '../../../src/output/manifest.js';
import { TABLE_NAMES, TABLES, type TableName } from '../../../src/output/tables.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import { changeEveryWayOnOpen, merged, type Row, readTables, type SyncEnv, startSyncEnv } from '../sync/support.js';
import {
  type Dialect,
  expectedDocs,
  manifestsOf,
  type ReadRows,
  tablesOf,
  warehouseDocs,
  withDuckdb,
  withPostgres,
} from './support.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'schema-sets');
const SETS = readdirSync(FIXTURES).filter((name) => /^[0-9a-f]{12}$/.test(name));
const logger = silentLogger();

const postgres = sharedPostgres();
let env: SyncEnv;
let database = 0;

/** A row of today's files in an earlier set's shape: the columns it had, under the names it had. */
function olderRow(row: Row, columns: readonly string[]): Row {
  const out: Row = {};
  for (const column of columns) {
    if (column === 'extra' && 'source_extra' in row) out.extra = row.source_extra;
    else out[column] = row[column] ?? null;
  }
  return out;
}

/** The tables of a set's DDL with their columns in order, and the DDL of `_raw` and `_batch` beside each. */
function setTables(ddl: string): Map<TableName, string[]> {
  const out = new Map<TableName, string[]>();
  for (const m of ddl.matchAll(/CREATE TABLE IF NOT EXISTS (\w+) \(\n([\s\S]*?)\n\)/g)) {
    const columns = [...m[2]!.matchAll(/^ {2}(\w+) /gm)].map((c) => c[1]!).filter((c) => c !== 'PRIMARY');
    out.set(m[1] as TableName, columns);
  }
  return out;
}

function landingDdl(ddl: string): string {
  const out: string[] = [];
  for (const m of ddl.matchAll(/CREATE TABLE IF NOT EXISTS (\w+) \(\n([\s\S]*?)\n\);/g)) {
    const columns = m[2]!
      .split('\n')
      .filter((l) => !l.includes('PRIMARY KEY'))
      .join('\n')
      .replace(/,$/, '');
    for (const role of ['raw', 'batch']) out.push(`CREATE TABLE ${m[1]}_${role} (\n${columns}\n);`);
  }
  return out.join('\n');
}

interface Target {
  dialect: Dialect;
  into: string;
  read<T>(use: (read: ReadRows) => Promise<T>): Promise<T>;
  exec(sql: string): Promise<void>;
}

async function duckTarget(name: string): Promise<Target> {
  const path = join(env.dir, `${name}.duckdb`);
  const read = <T>(use: (r: ReadRows) => Promise<T>) => withDuckdb(path, use);
  const exec = (sql: string) => withDuckdb(path, async (r) => void (await r(sql)));
  return { dialect: 'duckdb', into: `duckdb:${path}`, read, exec };
}

async function postgresTarget(ctx: TestContext): Promise<Target> {
  const server = postgres.use(ctx);
  const name = `evolution_${++database}`;
  await withPostgres(server.url, async (r) => void (await r(`CREATE DATABASE ${name}`)));
  const url = server.url.replace(/\/postgres$/, `/${name}`);
  const read = <T>(use: (r: ReadRows) => Promise<T>) => withPostgres(url, use);
  return { dialect: 'postgres', into: url, read, exec: (sql) => read(async (r) => void (await r(sql))) };
}

/**
 * A warehouse as an earlier set left it: its printed DDL, `_raw` and `_batch`
 * with the same columns, and the rows of the first sync in that set's shape
 * (every version in `_raw`, the latest per key in the keyed table).
 */
async function buildOlder(target: Target, set: string, firstRun: string): Promise<void> {
  const ddl = readFileSync(join(FIXTURES, set, `${target.dialect}.sql`), 'utf8');
  await target.exec(ddl);
  await target.exec(landingDdl(ddl));
  const rows = readTables(env.outDir, firstRun);
  for (const [table, columns] of setTables(ddl)) {
    const all = (rows[table] ?? []).map((r) => olderRow(r, columns));
    const latest = [...merged(all, [...TABLES[table]]).values()];
    for (const [into, list] of [
      [`${table}_raw`, all],
      [table, latest],
    ] as const) {
      if (list.length === 0) continue;
      if (target.dialect === 'duckdb') {
        const file = join(env.dir, `${set}-${into}-${Date.now()}.jsonl.gz`);
        writeFileSync(file, gzipSync(`${list.map((r) => JSON.stringify(r)).join('\n')}\n`));
        await target.exec(`INSERT INTO ${into} SELECT * FROM read_${table}(['${file}'])`);
      } else {
        const json = JSON.stringify(list).replaceAll("'", "''");
        await target.exec(
          `INSERT INTO ${into} SELECT * FROM jsonb_populate_recordset(NULL::${into}, '${json}'::jsonb)`,
        );
      }
    }
  }
}

const load = (into: string, contract: 'evolve' | 'freeze', outDir?: string) =>
  loadJob(
    env.config({
      load: { into, schema_contract: contract },
      ...(outDir ? { destination: { type: 'local', path: outDir } } : {}),
    }),
    { logger },
  );

/** The tables `load` leaves: no `<table>_batch`; `<table>_raw` where the target had it, fed with the last manifest's rows. */
async function expectLayout(target: Target, raw: boolean): Promise<void> {
  const last = manifestsOf(env.outDir).at(-1)!;
  await target.read(async (r) => {
    const names = await tablesOf(target.dialect, r);
    expect(
      names.filter((n) => n.endsWith('_batch')),
      target.dialect,
    ).toEqual([]);
    expect(names.filter((n) => n.endsWith('_raw')).sort(), target.dialect).toEqual(
      raw ? TABLE_NAMES.map((t) => `${t}_raw`).sort() : [],
    );
    if (!raw) return;
    const rows = last.files.filter((f) => f.table === 'conversations').reduce((n, f) => n + f.rows, 0);
    const [fed] = await r(`SELECT count(*)::int AS n FROM conversations_raw WHERE _run_id = '${last.run_id}'`);
    expect(Number(fed!.n), `${target.dialect} conversations_raw fed`).toBe(rows);
  });
}

async function keyedEqualFiles(target: Target, raw = true): Promise<void> {
  await expectLayout(target, raw);
  for (const table of TABLE_NAMES) {
    const want = expectedDocs(env.outDir, table);
    const got = await target.read((r) => warehouseDocs(target.dialect, r, table, table));
    expect(new Set(got.keys()), `${target.dialect} ${table}`).toEqual(new Set(want.keys()));
    for (const [key, row] of want) expect(got.get(key), `${target.dialect} ${table} ${key}`).toEqual(row);
  }
  await target.read(async (r) => {
    // Every row of every table, the ones stored before the upgrade included, names the account; no key is stored twice.
    for (const table of TABLE_NAMES) {
      for (const of of raw ? [table, `${table}_raw`] : [table]) {
        const accounts = await r(`SELECT DISTINCT _account AS a FROM ${of}`);
        if (accounts.length > 0) expect(accounts, `${target.dialect} ${of}`).toEqual([{ a: 'acme' }]);
      }
      const keys = ['_account', ...TABLES[table]].join(', ');
      const [twice] = await r(
        `SELECT count(*)::int AS n FROM (SELECT ${keys} FROM ${table} GROUP BY ${keys} HAVING count(*) > 1) x`,
      );
      expect(Number(twice!.n), `${target.dialect} ${table}`).toBe(0);
    }
  });
}

/** The primary key of each keyed table PostgreSQL holds, as `table: columns`. */
async function postgresKeys(target: Target): Promise<string[]> {
  return target.read(async (r) =>
    (
      await r(
        "SELECT c.relname AS t, pg_get_constraintdef(k.oid) AS def FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid WHERE k.contype = 'p' AND c.relname IN ('conversations', 'report_productivity_daily') ORDER BY 1",
      )
    ).map((row) => `${row.t}: ${row.def}`),
  );
}

let firstRun = '';

beforeAll(async () => {
  env = await startSyncEnv({ seed: 51, conversations: 30 });
  const first = await env.sync();
  firstRun = first.summary.run_id;
  await changeEveryWayOnOpen(env.sandbox);
  expect((await env.sync()).summary.status).toBe('succeeded');
}, 180_000);

afterAll(async () => {
  await env?.close();
});

const targetsOf = async (ctx: TestContext, set: string, name: string) => [
  await duckTarget(`${set}-${name}`),
  await postgresTarget(ctx),
];

describe.each(SETS)('a warehouse built by schema set %s', (set) => {
  it('evolve: today’s manifests load with no hand-written SQL, and every keyed table equals the files', async (ctx) => {
    for (const target of await targetsOf(ctx, set, 'evolve')) {
      await buildOlder(target, set, firstRun);
      const summary: LoadSummary = await load(target.into, 'evolve');
      expect(summary.failure, target.dialect).toBeUndefined();
      expect(summary.manifests_loaded).toBe(2);
      await keyedEqualFiles(target);
      if (set === '6db7f5bf401a') await changedColumnsKept(target);
      if (target.dialect === 'postgres') {
        expect(await postgresKeys(target)).toEqual([
          'conversations: PRIMARY KEY (_account, id)',
          'report_productivity_daily: PRIMARY KEY (_account, inbox_id, date)',
        ]);
      }
    }
  });
});

/** 6db7f5bf401a → today: the column that set called `extra` keeps its values, and viewed_at is a timestamp. */
async function changedColumnsKept(target: Target): Promise<void> {
  await target.read(async (r) => {
    // The column the set called `extra` is kept with its values; new rows fill source_extra.
    const older = (readTables(env.outDir, firstRun).messages ?? []).filter((m) => m.source_extra != null);
    const [kept] = await r('SELECT count(extra)::int AS n FROM messages_raw');
    expect(Number(kept!.n), `${target.dialect}: the older rows keep their values`).toBe(older.length);
    const types = await r(
      target.dialect === 'duckdb'
        ? "SELECT data_type AS t FROM duckdb_columns() WHERE table_name = 'conversations_raw' AND column_name = 'viewed_at'"
        : "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'conversations_raw'::regclass AND attname = 'viewed_at'",
    );
    expect(String(types[0]!.t).toLowerCase()).toBe('timestamp with time zone');
  });
}

describe('a warehouse built by schema set 6db7f5bf401a, whose columns differ', () => {
  const set = '6db7f5bf401a';
  it('freeze: refused before any row, every difference of every table in one message', async (ctx) => {
    for (const target of await targetsOf(ctx, set, 'freeze')) {
      await buildOlder(target, set, firstRun);
      const summary = await load(target.into, 'freeze');
      expect(summary).toMatchObject({ status: 'failed', manifests_loaded: 0, manifests_pending: 2 });
      expect(summary.failure?.code).toBe('LOAD_SCHEMA_MISMATCH');
      const message = summary.failure!.message;
      const timestamp = target.dialect === 'duckdb' ? 'TIMESTAMP WITH TIME ZONE' : 'timestamp with time zone';
      for (const role of ['', '_raw']) {
        expect(message).toContain(
          `conversations${role}.viewed_at: ${target.dialect === 'duckdb' ? 'VARCHAR' : 'text'}, expected ${timestamp}`,
        );
        for (const table of ['messages', 'thread_events', 'users'])
          expect(message).toContain(`${table}${role}.source_extra: missing`);
        expect(message).toContain(`inboxes${role}.agents: `);
      }
      expect(message).toContain('fix: set load.schema_contract: evolve');
      expect(
        await target.read(async (r) => (await r('SELECT count(*)::int AS n FROM helpdesk_loaded_manifests'))[0]!.n),
      ).toBe(0);
    }
  });

  it('a stored value that would not convert: refused before any row, named, with the statements that fix it', async (ctx) => {
    for (const target of await targetsOf(ctx, set, 'lossy')) {
      await buildOlder(target, set, firstRun);
      await target.exec(
        "UPDATE conversations_raw SET viewed_at = 'last tuesday' WHERE id = (SELECT min(id) FROM conversations_raw)",
      );
      const refused = await load(target.into, 'evolve');
      expect(refused.failure?.code, target.dialect).toBe('LOAD_SCHEMA_MISMATCH');
      const message = refused.failure!.message;
      const lines = message.split('\n');
      // Every difference is listed; only the one evolve cannot make says why.
      expect(lines.filter((l) => l.includes('would not convert'))).toEqual([
        expect.stringMatching(
          /^ {2}conversations_raw\.viewed_at: (VARCHAR|text), expected .*: 1 stored value\(s\) would not convert$/,
        ),
      ]);
      expect(lines).toContainEqual(
        expect.stringMatching(/^ {2}conversations\.viewed_at: (VARCHAR|text), expected [a-zA-Z ]+$/),
      );
      expect(lines).toContainEqual(expect.stringMatching(/^ {2}messages\.extra: .*evolve keeps it/));
      const fixes = message.split('\n').filter((l) => l.startsWith('  ALTER TABLE'));
      expect(fixes).toEqual(['  ALTER TABLE conversations_raw RENAME COLUMN viewed_at TO viewed_at_before;']);
      for (const fix of fixes) await target.exec(fix);
      const loaded = await load(target.into, 'evolve');
      expect(loaded.failure, target.dialect).toBeUndefined();
      await keyedEqualFiles(target);
      await target.read(async (r) => {
        const [aside] = await r(
          "SELECT count(*)::int AS n FROM conversations_raw WHERE viewed_at_before = 'last tuesday'",
        );
        expect(Number(aside!.n)).toBe(1);
      });
    }
  });
});

describe('a warehouse built by schema set 90a6110db471, before rows named their account', () => {
  const set = '90a6110db471';

  it('freeze: refused before any row, naming _account in every table and the primary keys that change', async (ctx) => {
    for (const target of await targetsOf(ctx, set, 'freeze')) {
      await buildOlder(target, set, firstRun);
      const summary = await load(target.into, 'freeze');
      expect(summary, target.dialect).toMatchObject({ status: 'failed', manifests_loaded: 0, manifests_pending: 2 });
      expect(summary.failure?.code).toBe('LOAD_SCHEMA_MISMATCH');
      const lines = summary.failure!.message.split('\n');
      const text = target.dialect === 'duckdb' ? 'VARCHAR' : 'text';
      for (const table of TABLE_NAMES)
        for (const role of ['', '_raw'])
          expect(lines).toContain(`  ${table}${role}._account: missing (expected ${text})`);
      expect(lines).toContain(
        'fix: set load.schema_contract: evolve (it makes exactly these changes), or run these statements and load again:',
      );
      // The statements evolve would run: the column, every stored row given the pipeline's account.
      if (target.dialect === 'postgres') {
        expect(lines).toContain('  conversations: primary key (id), expected (_account, id)');
        expect(lines).toContain("  ALTER TABLE conversations ADD COLUMN _account text NOT NULL DEFAULT 'acme';");
        expect(lines).toContain('  ALTER TABLE conversations DROP CONSTRAINT "conversations_pkey";');
        expect(lines).toContain('  ALTER TABLE conversations ADD PRIMARY KEY (_account, id);');
      } else {
        expect(lines).toContain("  ALTER TABLE conversations ADD COLUMN _account VARCHAR DEFAULT 'acme';");
        expect(lines).toContain('  ALTER TABLE conversations ALTER COLUMN _account SET NOT NULL;');
      }
      expect(
        await target.read(async (r) => (await r('SELECT count(*)::int AS n FROM helpdesk_loaded_manifests'))[0]!.n),
      ).toBe(0);
    }
  });

  it('evolve over a warehouse `load` filled: its pipeline’s organization names the stored rows, the next manifest merges over them', async (ctx) => {
    const [first] = manifestsOf(env.outDir);
    for (const target of await targetsOf(ctx, set, 'loaded')) {
      await buildOlder(target, set, firstRun);
      await loadedBySetBefore(target, first!);
      const summary = await load(target.into, 'evolve');
      expect(summary.failure, target.dialect).toBeUndefined();
      expect(summary).toMatchObject({ manifests_loaded: 1, manifests_loaded_before: 1 });
      await keyedEqualFiles(target);
      const pipelines = await target.read((r) =>
        r('SELECT account, organization_slug, last_run_id FROM helpdesk_pipelines'),
      );
      expect(pipelines).toEqual([
        { account: 'acme', organization_slug: 'acme', last_run_id: manifestsOf(env.outDir)[1]!.run_id },
      ]);
    }
  });

  it('output written before _account was loads into a new warehouse, its rows given the account its source names', async (ctx) => {
    const older = join(env.dir, 'older-out');
    writeOlderOutput(env.outDir, older);
    const [manifest] = readdirSync(join(older, '_manifests'));
    expect(JSON.parse(readFileSync(join(older, '_manifests', manifest!), 'utf8'))).not.toHaveProperty('account');
    for (const target of [await duckTarget('older-output'), await postgresTarget(ctx)]) {
      const summary = await load(target.into, 'evolve', older);
      expect(summary.failure, target.dialect).toBeUndefined();
      expect(summary.manifests_loaded).toBe(2);
      await keyedEqualFiles(target, false);
    }
  });
});

/**
 * What `load` of the set before added to the tables buildOlder made, having
 * loaded the first manifest: its bookkeeping tables (helpdesk_pipelines without
 * `account`), the ledger row and the pipeline the manifest named.
 */
async function loadedBySetBefore(target: Target, first: Manifest): Promise<void> {
  const bookkeeping = readFileSync(join(FIXTURES, '90a6110db471', 'bookkeeping.sql'), 'utf8');
  await target.exec(bookkeeping);
  const q = (v: string | null | undefined) => (v === null || v === undefined ? 'NULL' : `'${v.replaceAll("'", "''")}'`);
  await target.exec(
    `INSERT INTO helpdesk_loaded_manifests (run_id, files, row_count, load_errors, schema_version) VALUES (${q(first.run_id)}, ${first.files.length}, 0, 0, ${q(first.schema_version)});`,
  );
  await target.exec(
    'INSERT INTO helpdesk_pipelines (pipeline_id, source_base_url, organization_slug, organization_company, destination, privacy_policy, privacy_key, schema_set, first_run_id, last_run_id) ' +
      `VALUES (1, ${q(first.source?.base_url)}, ${q(first.source?.organization.slug)}, ${q(first.source?.organization.company)}, ${q(first.location)}, 'none', NULL, '90a6110db471', ${q(first.run_id)}, ${q(first.run_id)});`,
  );
}

/**
 * The output of `from` as the version before `_account` wrote it: the column out
 * of every line and `account` out of every manifest (sizes and sha256 made anew).
 */
function writeOlderOutput(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
  const dir = join(to, '_manifests');
  for (const name of readdirSync(dir)) {
    const { account: _, ...manifest } = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Manifest;
    for (const file of manifest.files) {
      const lines = gunzipSync(readFileSync(join(to, file.key)))
        .toString('utf8')
        .split('\n')
        .filter(Boolean);
      const body = gzipSync(
        `${lines
          .map((l) => {
            const { _account: __, ...row } = JSON.parse(l);
            return JSON.stringify(row);
          })
          .join('\n')}\n`,
      );
      writeFileSync(join(to, file.key), body);
      file.bytes = body.length;
      file.sha256 = createHash('sha256').update(body).digest('hex');
    }
    writeFileSync(join(dir, name), JSON.stringify(manifest));
  }
}

it('there is a fixture for every earlier schema set of the changelog', () => {
  const changelog = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'output.md'), 'utf8');
  const earlier = [...changelog.matchAll(/^### Schema set `[0-9a-f]{12}` \(was `([0-9a-f]{12})`\)/gm)].map((m) => m[1]);
  expect(earlier.length).toBeGreaterThan(0);
  expect(SETS.sort()).toEqual([...new Set(earlier)].sort());
});
