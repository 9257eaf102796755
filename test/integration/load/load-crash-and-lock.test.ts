/**
 * `load` killed (SIGKILL, from inside, at each named step) again and again into
 * one target, each run starting where the killed one left off: after every kill
 * the target holds whole manifests only (each in the ledger once, every keyed
 * table equal to the latest rows of the loaded manifests' files, no working
 * table left; where `_raw` is fed, its rows once, none half loaded), and a last
 * load ends with every table equal to the files. A target loaded with `_raw`
 * (load.keep_raw: true), then killed again and again under the default, keeps
 * being fed. History (direct load): every history table equal to its rebuild
 * from the loaded manifests' files after every kill. Two loads at once on one target: the second exits with the lock code
 * (75) while the first holds the target, and the first completes; no kill leaves
 * a spool file of PostgreSQL's typed COPY behind. DuckDB, and a real PostgreSQL
 * server (test/support/shared-postgres.ts).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { Manifest } from '../../../src/output/manifest.js';
import { TABLE_NAMES, TABLES, type TableName } from '../../../src/output/tables.js';
import { DIALECTS } from '../../../src/warehouse/dialects.js';
import { historySelect } from '../../../src/warehouse/history/history-sql.js';
import { builtHarness } from '../../support/built-harness.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import { readJsonlGz } from '../output/support/read-jsonl-gz.js';
import { runBuiltCli, touchConversations } from '../resilience/support.js';
import { type CliResult, runProcess } from '../sync/cli-run.js';
import { api, changeEveryWayOnOpen, type Row, type SyncEnv, startSyncEnv } from '../sync/support.js';
import {
  type Dialect,
  expectedDocs,
  latestDocs,
  manifestsOf,
  type ReadRows,
  tablesOf,
  warehouseDocs,
  withDuckdb,
  withPostgres,
} from './support.js';

/** Many real processes in a row: minutes on a loaded machine. */
const TIMEOUT_MS = 300_000;
const ROOT = join(import.meta.dirname, '..', '..', '..');
// Run as plain JavaScript against dist/ (see builtHarness).
const HARNESS = builtHarness(join(import.meta.dirname, 'load-harness.ts'));

/**
 * One manifest per transaction: each kill hits the run that resumed from the
 * previous one (the counts are per process).
 */
const KILLS = [
  'load-locked:1',
  'manifest-read:1',
  'file-staged:1',
  'table-merged:1',
  'table-merged:5',
  'before-commit:1',
  'manifest-loaded:1',
  'table-merged:2',
  'before-commit:1',
  'manifest-loaded:1',
];

/** The kills before a manifest's commit leave nothing of it; those after leave it whole. */
const ONE_BY_ONE = { kills: KILLS, progress: [0, 0, 0, 0, 0, 0, 1, 1, 1, 2], transactionRows: '1' };

/**
 * All three manifests in one transaction: a kill anywhere before its commit
 * (the third file staged, the fifth table merged, the ledger rows written) leaves
 * none of them; a kill after it, all three.
 */
const ALL_IN_ONE = {
  kills: ['manifest-read:3', 'file-staged:4', 'table-merged:5', 'before-commit:1', 'manifest-loaded:2'],
  progress: [0, 0, 0, 0, 3],
  transactionRows: '',
};

type Series = typeof ONE_BY_ONE;

let env: SyncEnv;
let config: string;
let manifests: Manifest[];
const postgres = sharedPostgres();

/** The loads' temporary directory (TMPDIR), where a PostgreSQL load spools the rows it encodes ahead. */
const tmp = () => join(env.dir, 'tmp');

/** Spool files a load left behind: none, however it ended (they are removed as soon as opened). */
const spoolsLeft = () => readdirSync(tmp()).filter((name) => name.startsWith('helpdesk-sync-copy-'));

function harness(into: string, extra: NodeJS.ProcessEnv): Promise<CliResult> {
  const env_: NodeJS.ProcessEnv = {
    HARNESS_CONFIG: config,
    HARNESS_INTO: into,
    CRASH_AT: '',
    HOLD_AT: '',
    TMPDIR: tmp(),
    ...extra,
  };
  return runProcess(process.execPath, [HARNESS], { cwd: ROOT, env: env_ });
}

interface Target {
  into: string;
  dialect: Dialect;
  read<T>(use: (read: ReadRows) => Promise<T>): Promise<T>;
  /** The target has `_raw` tables, fed by every load (a target loaded with load.keep_raw: true first). */
  raw?: boolean;
}

function duckTarget(name: string): Target {
  const path = join(env.dir, `${name}.duckdb`);
  return { into: `duckdb:${path}`, dialect: 'duckdb', read: (use) => withDuckdb(path, use) };
}

/**
 * A target as a load that kept `_raw` left it (load.keep_raw: true): the first
 * manifest loaded, `_raw` tables made and fed; every later load, under the
 * default setting, must keep feeding them.
 */
async function withRaw(target: Target): Promise<Target> {
  const first = await harness(target.into, {
    HARNESS_CONFIG: keepRawConfig,
    CRASH_AT: 'manifest-loaded:1',
    TRANSACTION_ROWS: '1',
  });
  expect(first.signal, first.stderr).toBe('SIGKILL');
  const raw = { ...target, raw: true };
  expect(await expectWholeManifests(raw)).toBe(1);
  return raw;
}

/** The rows of the first `count` manifests' files of `table`. */
const loadedRows = (table: string, count: number): Row[] =>
  manifests
    .slice(0, count)
    .flatMap((m) => m.files)
    .filter((f) => f.table === table)
    .flatMap((f) => readJsonlGz(join(env.outDir, f.key)) as Row[]);

async function postgresTarget(ctx: TestContext, database: string): Promise<Target> {
  const server = postgres.use(ctx);
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = server.url.replace(/\/postgres$/, `/${database}`);
  return {
    into: url,
    dialect: 'postgres',
    read: (use) => withPostgres(url, use),
  };
}

/**
 * Whole manifests only: the ledger is a prefix of the manifests in run_id order,
 * each once; every keyed table holds exactly the latest rows of their files; no
 * `<table>_batch` is left; `_raw` exists only where it is fed, and then holds
 * exactly the rows of their files. Returns how many manifests are loaded.
 */
async function expectWholeManifests(target: Target): Promise<number> {
  return target.read(async (read) => {
    // Load order is the ledger's order of arrival; the manifests of one transaction share its
    // time (and commit at once), so among them the load order of the files is kept.
    const order = (runId: string) => manifests.findIndex((m) => m.run_id === runId);
    const at =
      target.dialect === 'duckdb' ? 'epoch_us(loaded_at)' : '(extract(epoch FROM loaded_at) * 1000000)::bigint';
    const ledger = (await read(`SELECT run_id, ${at} AS at FROM helpdesk_loaded_manifests`))
      .map((r) => ({ runId: String(r.run_id), at: Number(r.at) }))
      .sort((x, y) => x.at - y.at || order(x.runId) - order(y.runId))
      .map((r) => r.runId);
    const loaded = manifests.slice(0, ledger.length);
    expect(ledger).toEqual(loaded.map((m) => m.run_id));
    const tables = await tablesOf(target.dialect, read);
    expect(tables.filter((t) => t.endsWith('_batch'))).toEqual([]);
    expect(tables.filter((t) => t.endsWith('_raw')).length).toBe(target.raw ? TABLE_NAMES.length : 0);
    for (const table of TABLE_NAMES) {
      const want = latestDocs(table, loadedRows(table, ledger.length));
      const got = await warehouseDocs(target.dialect, read, table, table);
      expect(new Set(got.keys()), `${table} after ${ledger.length} manifests`).toEqual(new Set(want.keys()));
      for (const [key, row] of want) expect(got.get(key), `${table} ${key}`).toEqual(row);
      if (!target.raw) continue;
      const rows = loaded
        .flatMap((m) => m.files)
        .filter((f) => f.table === table)
        .reduce((n, f) => n + f.rows, 0);
      const [raw] = await read(`SELECT count(*)::int AS n FROM ${table}_raw`);
      expect(Number(raw!.n), `${table}_raw after ${ledger.length} manifests`).toBe(rows);
    }
    return ledger.length;
  });
}

async function expectEqualToFiles(target: Target): Promise<void> {
  for (const table of TABLE_NAMES) {
    const want = expectedDocs(env.outDir, table);
    const got = await target.read((read) => warehouseDocs(target.dialect, read, table, table));
    expect(new Set(got.keys()), table).toEqual(new Set(want.keys()));
    for (const [key, row] of want) expect(got.get(key), `${table} ${key}`).toEqual(row);
  }
}

async function killAtEachStep(target: Target, series: Series): Promise<void> {
  const progress: number[] = [];
  const TRANSACTION_ROWS = series.transactionRows;
  for (const point of series.kills) {
    const run = await harness(target.into, { CRASH_AT: point, TRANSACTION_ROWS });
    expect(run.signal, `killed at ${point} (the run ended first: exit ${run.code} ${run.stderr})`).toBe('SIGKILL');
    expect(spoolsLeft(), `spools left by the kill at ${point}`).toEqual([]);
    progress.push(await expectWholeManifests(target));
  }
  expect(progress).toEqual(series.progress);
  const last = await harness(target.into, { TRANSACTION_ROWS });
  expect(last.code, last.stderr).toBe(0);
  const before = series.progress.at(-1)!;
  expect(JSON.parse(last.stdout)).toMatchObject({
    status: 'succeeded',
    manifests_loaded: manifests.length - before,
    manifests_loaded_before: before,
  });
  expect(await expectWholeManifests(target)).toBe(manifests.length);
  await expectEqualToFiles(target);
}

async function twoLoadsAtOnce(target: Target): Promise<void> {
  const hold = join(env.dir, `hold-${target.dialect}`);
  const release = join(env.dir, `release-${target.dialect}`);
  const first = harness(target.into, { HOLD_AT: 'table-merged', HOLD_FILE: hold, RELEASE_FILE: release });
  try {
    while (!existsSync(hold)) await sleep(20);
    const second = await runBuiltCli(['load', '--config', config, '--into', target.into]);
    expect(second.code, second.stderr).toBe(75);
    expect(second.stderr).toContain('STATE_LOCKED');
  } finally {
    // Released even when an expectation failed, so the holding process never outlives the test.
    writeFileSync(release, 'go');
  }
  const done = await first;
  expect(done.code, done.stderr).toBe(0);
  expect(JSON.parse(done.stdout)).toMatchObject({ status: 'succeeded', manifests_loaded: manifests.length });
  const again = await runBuiltCli(['load', '--config', config, '--into', target.into]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout).toContain(`0 manifests loaded, ${manifests.length} loaded before`);
  await expectEqualToFiles(target);
}

/** History mode: kills inside the history step and around the commit (counts per process). */
const HISTORY_KILLS = ['history-built:1', 'history-built:9', 'before-commit:1', 'history-built:4', 'manifest-loaded:1'];

/**
 * Every version the loaded manifests' files hold of `table`, as a subquery the
 * target runs: DuckDB reads the files, PostgreSQL their rows as JSON.
 */
function versionsOf(target: Target, table: TableName, loaded: number): string {
  const files = manifests
    .slice(0, loaded)
    .flatMap((m) => m.files)
    .filter((f) => f.table === table);
  if (files.length === 0) return `(SELECT * FROM ${table} WHERE false)`;
  if (target.dialect === 'duckdb') {
    return `(SELECT * FROM read_${table}([${files.map((f) => `'${join(env.outDir, f.key)}'`).join(', ')}]))`;
  }
  return `(SELECT * FROM json_populate_recordset(NULL::${table}, $rows$${JSON.stringify(loadedRows(table, loaded))}$rows$))`;
}

/**
 * Whole intervals only: each history table equals the history built at once
 * from every version of the loaded manifests' files — no interval half closed,
 * no version of an unloaded manifest, none missing.
 */
async function expectWholeHistory(target: Target, loaded: number): Promise<void> {
  await target.read(async (read) => {
    for (const table of TABLE_NAMES) {
      const columns = `${TABLES[table].join(', ')}, _synced_at, _run_id, valid_from, valid_to, is_current`;
      const rebuilt = `(${historySelect(DIALECTS[target.dialect], table, versionsOf(target, table, loaded))}) r`;
      const [{ m }] = (await read(`SELECT count(*)::int AS m FROM ${rebuilt}`)) as [{ m: number }];
      // Created in the first manifest's transaction: absent until one has committed, and then nothing is expected.
      const counted = await read(`SELECT count(*)::int AS n FROM ${table}_history`).catch((error: Error) => {
        if (!/does not exist/.test(error.message)) throw error;
        return undefined;
      });
      if (counted === undefined) {
        expect(Number(m), `${table}_history absent while loaded files have versions`).toBe(0);
        continue;
      }
      expect(Number(counted[0]!.n), `${table}_history rows`).toBe(Number(m));
      const [{ d }] = (await read(
        `SELECT count(*)::int AS d FROM (SELECT ${columns} FROM ${table}_history EXCEPT SELECT ${columns} FROM ${rebuilt}) x`,
      )) as [{ d: number }];
      expect(Number(d), `${table}_history differs from its rebuild`).toBe(0);
    }
  });
}

async function killHistoryLoads(target: Target): Promise<void> {
  for (const point of HISTORY_KILLS) {
    const run = await harness(target.into, { CRASH_AT: point, HARNESS_CONFIG: historyConfig });
    expect(run.signal, `killed at ${point} (the run ended first: exit ${run.code} ${run.stderr})`).toBe('SIGKILL');
    await expectWholeHistory(target, await expectWholeManifests(target));
  }
  const last = await harness(target.into, { HARNESS_CONFIG: historyConfig });
  expect(last.code, last.stderr).toBe(0);
  expect(await expectWholeManifests(target)).toBe(manifests.length);
  await expectWholeHistory(target, manifests.length);
  await expectEqualToFiles(target);
}

let historyConfig: string;
let keepRawConfig: string;

beforeAll(async () => {
  env = await startSyncEnv({ seed: 52, conversations: 25 });
  mkdirSync(tmp());
  config = env.configFile('load.json', { log: { level: 'error' } });
  historyConfig = env.configFile('history.json', { log: { level: 'error' }, load: { history: true } });
  keepRawConfig = env.configFile('keep-raw.json', { log: { level: 'error' }, load: { keep_raw: true } });
  await env.sync();
  const live = await changeEveryWayOnOpen(env.sandbox);
  await env.sync();
  await touchConversations(env, 3, 'third run');
  await api(env.sandbox, 'PATCH', `/contacts/${(live.at(-1)!.contact as Row).id}`, { company: 'Third Run Ltd' });
  await env.sync();
  manifests = manifestsOf(env.outDir);
  expect(manifests.length).toBe(3);
}, 120_000);

afterAll(async () => {
  await env?.close();
});

describe('load killed at each step, and two loads at once', () => {
  it(
    'DuckDB: killed ten times, whole manifests only; the last load completes equal to the files',
    async () => {
      await killAtEachStep(duckTarget('killed'), ONE_BY_ONE);
    },
    TIMEOUT_MS,
  );

  it(
    'DuckDB: three manifests in one transaction, killed five times: none or all of them',
    async () => {
      await killAtEachStep(duckTarget('killed-together'), ALL_IN_ONE);
    },
    TIMEOUT_MS,
  );

  it(
    'DuckDB: a target loaded with _raw, killed again and again under the default setting: _raw still fed, whole manifests only',
    async () => {
      const target = await withRaw(duckTarget('upgraded'));
      // The first manifest is loaded: the series starts one manifest on.
      await killAtEachStep(target, { ...ONE_BY_ONE, progress: ONE_BY_ONE.progress.map((n) => Math.min(n + 1, 3)) });
    },
    TIMEOUT_MS,
  );

  it(
    'DuckDB: a second load while one holds the file exits 75; the first completes',
    async () => {
      await twoLoadsAtOnce(duckTarget('locked'));
    },
    TIMEOUT_MS,
  );

  it(
    'history mode, DuckDB and PostgreSQL: killed inside the history step and around the commit, whole intervals only',
    async (ctx) => {
      const target = await postgresTarget(ctx, 'history');
      await killHistoryLoads(duckTarget('history'));
      await killHistoryLoads(target);
    },
    TIMEOUT_MS,
  );

  it(
    'PostgreSQL server: killed ten times, whole manifests only, then five times with the three in one transaction, then ten times into a target loaded with _raw; two loads at once, the second exits 75',
    async (ctx) => {
      const killed = await postgresTarget(ctx, 'killed');
      const together = await postgresTarget(ctx, 'killed_together');
      const upgraded = await postgresTarget(ctx, 'upgraded');
      const locked = await postgresTarget(ctx, 'locked');
      await killAtEachStep(killed, ONE_BY_ONE);
      await killAtEachStep(together, ALL_IN_ONE);
      await killAtEachStep(await withRaw(upgraded), {
        ...ONE_BY_ONE,
        progress: ONE_BY_ONE.progress.map((n) => Math.min(n + 1, 3)),
      });
      await twoLoadsAtOnce(locked);
    },
    TIMEOUT_MS,
  );
});
