/**
 * The accounts of one config in one set of tables: two sandboxes seeded alike
 * (the same conversation ids, changed apart), listed as two accounts of one
 * config, synced and loaded into one target, a DuckDB file and a real
 * PostgreSQL server.
 * - every row names its account; an id both accounts have is two rows; a
 *   deletion in one account tombstones that account's row only; history is kept
 *   per account; the dbt models and their key tests hold per (account, key);
 * - one pipeline per account in one target; a pipeline of another source under
 *   a name the target holds is refused, as before;
 * - `load` and `sync --load` of the config load every account, into the file's
 *   one target;
 * - a single-account config moved into `accounts:` (its organization's slug as
 *   the name, its state moved into the account's folder) keeps every key.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/schema.js';
import { loadJob, loadOfConfigFile } from '../../../src/load/load-job.js';
import { silentLogger } from '../../../src/log.js';
import { TABLE_NAMES, TABLES, type TableName } from '../../../src/output/tables.js';
import { syncAccounts } from '../../../src/sync/accounts/sync-accounts.js';
import { syncJob } from '../../../src/sync/sync-job.js';
import { dbtProjectFiles, keyUniqueTestPath, stagingModel } from '../../../src/warehouse/dbt-export.js';
import { STATUS_DURATIONS_MODEL } from '../../../src/warehouse/history/history-dbt.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import { runBuiltCli } from '../resilience/support.js';
import { allConversations, api, daysAgo, type Row, readTables, type SyncEnv, startSyncEnv } from '../sync/support.js';
import { type Dialect, latestDocs, type ReadRows, warehouseRows, withDuckdb, withPostgres } from './support.js';

const logger = silentLogger();
const postgres = sharedPostgres();

/** Two sandboxes of one seed: the same ids in both, each changed on its own. */
let eu: SyncEnv;
let us: SyncEnv;
const reportsStart = daysAgo(4);

beforeAll(async () => {
  [eu, us] = await Promise.all([
    startSyncEnv({ seed: 81, conversations: 20 }),
    startSyncEnv({ seed: 81, conversations: 20 }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([eu?.close(), us?.close()]);
});

/** A config file (as written) of the two sandboxes as accounts `eu` and `us`, under `dir` of the first env. */
function accountsFile(name: string, extra: Record<string, unknown> = {}, accounts?: Array<[string, SyncEnv]>) {
  const dir = join(eu.dir, name);
  return {
    source: { rate_limit: { requests_per_minute: 100_000, concurrency: 8 } },
    accounts: (accounts ?? [['eu', eu] as const, ['us', us] as const]).map(([account, env]) => ({
      name: account,
      base_url: env.sandbox.baseUrl,
      token: 'sandbox-admin',
    })),
    reports: { start_date: reportsStart, lookback_days: 1 },
    destination: { type: 'local', path: join(dir, 'out') },
    state: { path: join(dir, 'state', 'state.sqlite') },
    ...extra,
  };
}

const parse = (raw: unknown) => parseConfigFile(raw, 'test', {});

async function syncAll(raw: unknown): Promise<void> {
  const outcomes = await syncAccounts(parse(raw).accounts, { logger });
  expect(outcomes.map((o) => [o.account, o.status])).toEqual(outcomes.map((o) => [o.account, 'succeeded']));
}

const loadAll = (raw: unknown, options: { into?: string; mixPipelines?: boolean } = {}) => {
  const { config, accounts } = loadOfConfigFile(parse(raw));
  return loadJob(config, { logger, accounts, ...options });
};

/** What the keyed tables must hold: per account, the latest live row per key of its own files, keyed `account|key`. */
function expectedOf(out: string, table: TableName, accounts: string[]): Map<string, Row> {
  const all = new Map<string, Row>();
  for (const account of accounts) {
    for (const [key, doc] of latestDocs(table, readTables(join(out, account))[table])) {
      expect(doc._account, `${account} ${table} ${key}`).toBe(account);
      all.set(`${account}|${key}`, doc);
    }
  }
  return all;
}

async function keyedEqualFiles(dialect: Dialect, read: ReadRows, out: string, accounts: string[]): Promise<void> {
  for (const table of TABLE_NAMES) {
    const rows = await warehouseRows(dialect, read, table, table);
    const got = new Map(rows.map((d) => [[d._account, ...TABLES[table].map((c) => d[c])].join('|'), d]));
    const want = expectedOf(out, table, accounts);
    // No key twice: as many rows as keys.
    expect(rows.length, `${dialect} ${table}`).toBe(want.size);
    expect(new Set(got.keys()), `${dialect} ${table}`).toEqual(new Set(want.keys()));
    for (const [key, row] of want) expect(got.get(key), `${dialect} ${table} ${key}`).toEqual(row);
  }
}

const count = async (read: ReadRows, sql: string) => Number((await read(sql))[0]!.n);

/** Conversation ids both accounts hold, as two rows. */
const sharedIds = (read: ReadRows) =>
  count(
    read,
    'SELECT count(*)::int AS n FROM (SELECT id FROM conversations GROUP BY id HAVING count(DISTINCT _account) = 2) x',
  );

/** An open conversation of the sandbox (the same id in both: one seed). */
async function openConversation(env: SyncEnv, nth: number): Promise<Row> {
  const open = (await allConversations(env.sandbox)).filter((c) => c.deleted_at === null && c.status !== 'Closed');
  return open[nth]!;
}

describe('two accounts in one DuckDB file', () => {
  // Every version kept too (load.keep_raw): the tombstone of one account's deletion is there, under its account.
  const raw = () => accountsFile('duck', { load: { history: ['conversations'], keep_raw: true } });
  const target = () => join(eu.dir, 'duck', 'state', 'state.duckdb');

  it('every row names its account; an id of both accounts is two rows; tombstones and history per account', async () => {
    await syncAll(raw());
    const first = await loadAll(raw());
    expect(first).toMatchObject({ status: 'succeeded', manifests_loaded: 2, target_origin: 'load.into' });
    // load.into of the file's default: beside the file's state, not an account's.
    expect(first.target).toBe(`duckdb:${target()}`);
    const out = join(eu.dir, 'duck', 'out');
    await withDuckdb(target(), async (read) => {
      await keyedEqualFiles('duckdb', read, out, ['eu', 'us']);
      const conversations = await count(read, "SELECT count(*)::int AS n FROM conversations WHERE _account = 'eu'");
      expect(await sharedIds(read)).toBe(conversations);
      expect(await read('SELECT account, organization_slug FROM helpdesk_pipelines ORDER BY account')).toEqual([
        { account: 'eu', organization_slug: 'acme' },
        { account: 'us', organization_slug: 'acme' },
      ]);
    });

    // One conversation deleted in eu only, another changed in us only.
    const gone = await openConversation(eu, 0);
    const changed = await openConversation(us, 1);
    await api(eu.sandbox, 'DELETE', `/conversation/${gone.id}`);
    await api(eu.sandbox, 'DELETE', `/conversation/${gone.id}/force-delete`);
    await api(us.sandbox, 'PATCH', `/conversation/${changed.id}`, { status: 'Closed' });
    await syncAll(raw());
    expect(await loadAll(raw())).toMatchObject({ status: 'succeeded', manifests_loaded: 2 });
    await withDuckdb(target(), async (read) => {
      await keyedEqualFiles('duckdb', read, out, ['eu', 'us']);
      const accountsOf = async (id: unknown) =>
        (await read(`SELECT _account AS a FROM conversations WHERE id = '${id}' ORDER BY 1`)).map((r) => r.a);
      expect(await accountsOf(gone.id)).toEqual(['us']);
      expect(
        await read(`SELECT _account AS a, _deleted AS d FROM conversations_raw WHERE id = '${gone.id}' AND _deleted`),
      ).toEqual([{ a: 'eu', d: true }]);
      const versions = await read(
        `SELECT _account AS a, count(*)::int AS n, count(valid_to)::int AS closed FROM conversations_history WHERE id = '${changed.id}' GROUP BY 1 ORDER BY 1`,
      );
      expect(versions).toEqual([
        { a: 'eu', n: 1, closed: 0 },
        { a: 'us', n: 2, closed: 1 },
      ]);
      // The deletion closed eu's interval only.
      expect(
        await read(
          `SELECT _account AS a, is_current AS c FROM conversations_history WHERE id = '${gone.id}' ORDER BY 1`,
        ),
      ).toEqual([
        { a: 'eu', c: false },
        { a: 'us', c: true },
      ]);
    });
  });

  it('the dbt models: staging rows per account, key tests per (account, key), status durations per account', async () => {
    const files = dbtProjectFiles();
    const compile = (sql: string) =>
      sql
        .replace(/\{\{\s*source\('helpdesk',\s*'(\w+)'\)\s*\}\}/g, '$1')
        .replace(/\{\{\s*source\('helpdesk_history',\s*'(\w+)'\)\s*\}\}/g, '$1')
        .replace(/\{\{\s*ref\('(\w+)'\)\s*\}\}/g, '$1');
    await withDuckdb(target(), async (read) => {
      for (const table of TABLE_NAMES) {
        const model = files[`models/staging/helpdesk/${stagingModel(table)}.sql`]!;
        await read(`CREATE OR REPLACE TEMP VIEW ${stagingModel(table)} AS ${compile(model)}`);
        // The staging model is the keyed table, and its key test finds nothing.
        const keyed = await count(read, `SELECT count(*)::int AS n FROM ${table}`);
        expect(await count(read, `SELECT count(*)::int AS n FROM ${stagingModel(table)}`), table).toBe(keyed);
        expect(await read(compile(files[keyUniqueTestPath(table)]!)), table).toEqual([]);
      }
      const staged = await count(
        read,
        `SELECT count(*)::int AS n FROM (SELECT id FROM ${stagingModel('conversations')} GROUP BY id HAVING count(*) = 2) x`,
      );
      expect(staged).toBe(await sharedIds(read));
      const durations = compile(files[`models/history/helpdesk/${STATUS_DURATIONS_MODEL}.sql`]!);
      const accounts = await read(`SELECT DISTINCT _account AS a FROM (${durations}) d ORDER BY 1`);
      expect(accounts).toEqual([{ a: 'eu' }, { a: 'us' }]);
      // A conversation of both accounts has its statuses counted per account, not summed.
      const perConversation = await read(
        `SELECT count(DISTINCT _account)::int AS n FROM (${durations}) d GROUP BY conversation_id ORDER BY 1 DESC LIMIT 1`,
      );
      expect(perConversation).toEqual([{ n: 2 }]);
    });
  });

  it('another source under a name the target holds is refused, as before', async () => {
    // `eu` of another config reads the us sandbox: same account name, another source and destination.
    const other = accountsFile('other', {}, [['eu', us]]);
    await syncAll(other);
    const into = `duckdb:${target()}`;
    const before = await withDuckdb(target(), (read) => count(read, 'SELECT count(*)::int AS n FROM conversations'));
    const refused = await loadAll(other, { into });
    expect(refused).toMatchObject({ status: 'failed', manifests_loaded: 0 });
    expect(refused.failure?.code).toBe('LOAD_PIPELINE_MISMATCH');
    expect(refused.failure!.message).toContain('comes from another pipeline (source, destination differ)');
    expect(refused.failure!.message).toContain(`account eu; source ${us.sandbox.baseUrl.replace(/\/+$/, '')}`);
    expect(await withDuckdb(target(), (read) => count(read, 'SELECT count(*)::int AS n FROM conversations'))).toBe(
      before,
    );
  });

  it('the load command of a config that lists accounts loads every account, into the file’s default target', async () => {
    const file = join(eu.dir, 'cli-duck.json');
    const rawCli = accountsFile('cli-duck');
    writeFileSync(file, JSON.stringify(rawCli));
    await syncAll(rawCli);
    const loaded = await runBuiltCli(['load', '--config', file]);
    expect(loaded.code, loaded.stderr).toBe(0);
    const path = join(eu.dir, 'cli-duck', 'state', 'state.duckdb');
    expect(loaded.stdout).toContain(`load into duckdb:${path} (default: beside the state) succeeded`);
    expect(loaded.stdout).toContain('2 manifests loaded, 0 loaded before');
    await withDuckdb(path, (read) => keyedEqualFiles('duckdb', read, join(eu.dir, 'cli-duck', 'out'), ['eu', 'us']));
  });
});

describe('two accounts in one PostgreSQL database (a real server)', () => {
  it('sync --load syncs every account, then loads them all: rows per account, tombstones per account', async (ctx) => {
    const { url } = postgres.use(ctx);
    const file = join(eu.dir, 'pg.json');
    const raw = accountsFile('pg', { load: { into: url } });
    writeFileSync(file, JSON.stringify(raw));
    const first = await runBuiltCli(['sync', '--config', file, '--load']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('accounts: eu succeeded, us succeeded');
    expect(first.stdout).toMatch(
      /load into postgres.* \(from load\.into\) succeeded in .*: 2 manifests loaded, 0 loaded before/,
    );
    const out = join(eu.dir, 'pg', 'out');
    await withPostgres(url, async (read) => {
      await keyedEqualFiles('postgres', read, out, ['eu', 'us']);
      expect(await sharedIds(read)).toBeGreaterThan(5);
      expect(
        await read(
          "SELECT pg_get_constraintdef(k.oid) AS def FROM pg_constraint k WHERE k.conrelid = 'conversations'::regclass AND k.contype = 'p'",
        ),
      ).toEqual([{ def: 'PRIMARY KEY (_account, id)' }]);
    });
    const gone = await openConversation(us, 2);
    await api(us.sandbox, 'DELETE', `/conversation/${gone.id}`);
    await api(us.sandbox, 'DELETE', `/conversation/${gone.id}/force-delete`);
    const second = await runBuiltCli(['sync', '--config', file, '--load']);
    expect(second.code, second.stderr).toBe(0);
    await withPostgres(url, async (read) => {
      await keyedEqualFiles('postgres', read, out, ['eu', 'us']);
      expect((await read(`SELECT _account AS a FROM conversations WHERE id = '${gone.id}'`)).map((r) => r.a)).toEqual([
        'eu',
      ]);
    });
  });

  it('sync --load: a load that fails gives its exit code after the syncs', async (ctx) => {
    const { url } = postgres.use(ctx);
    const file = join(eu.dir, 'pg-other.json');
    // `us` of this config reads the eu sandbox: the target holds `us` of another source.
    writeFileSync(file, JSON.stringify(accountsFile('pg-other', { load: { into: url } }, [['us', eu]])));
    const run = await runBuiltCli(['sync', '--config', file, '--load']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('accounts: us succeeded');
    expect(run.stdout).toContain('[LOAD_PIPELINE_MISMATCH]');
  });
});

describe('a single-account config moved into accounts:', () => {
  it('keeps every key: the slug as the name, the state in its folder, the output a folder deeper', async () => {
    const dir = join(us.dir, 'moved');
    const state = join(dir, 'state', 'state.sqlite');
    const into = `duckdb:${join(dir, 'warehouse.duckdb')}`;
    const single: Config = us.config({
      destination: { type: 'local', path: join(dir, 'out') },
      state: { path: state },
    });
    expect((await syncJob(single, { logger })).summary.status).toBe('succeeded');
    expect(await loadJob(single, { logger, into })).toMatchObject({ status: 'succeeded', manifests_loaded: 1 });
    const before = await withDuckdb(join(dir, 'warehouse.duckdb'), async (read) => ({
      conversations: await count(read, 'SELECT count(*)::int AS n FROM conversations'),
      accounts: await read('SELECT DISTINCT _account AS a FROM conversations'),
    }));
    // The organization's slug names a single-account config's rows.
    expect(before.accounts).toEqual([{ a: 'acme' }]);

    // The move: the state into <state dir>/<slug>/ (the output already loaded stays where it is).
    mkdirSync(join(dir, 'state', 'acme'));
    for (const name of readdirSync(join(dir, 'state')).filter((n) => n.startsWith('state.sqlite')))
      renameSync(join(dir, 'state', name), join(dir, 'state', 'acme', name));
    const changed = await openConversation(us, 0);
    await api(us.sandbox, 'PATCH', `/conversation/${changed.id}`, { status: 'Closed' });
    const moved = {
      source: { rate_limit: { requests_per_minute: 100_000, concurrency: 8 } },
      accounts: [{ name: 'acme', base_url: us.sandbox.baseUrl, token: 'sandbox-admin' }],
      reports: { start_date: single.reports.start_date, lookback_days: 1 },
      destination: { type: 'local', path: join(dir, 'out') },
      state: { path: state },
      load: { into },
    };
    await syncAll(moved);
    expect(existsSync(join(dir, 'out', 'acme', '_manifests'))).toBe(true);
    const loaded = await loadAll(moved);
    expect(loaded).toMatchObject({ status: 'succeeded', manifests_loaded: 1, manifests_loaded_before: 1 });
    await withDuckdb(join(dir, 'warehouse.duckdb'), async (read) => {
      // The state moved with it: only the changed conversation was written again, onto its key.
      expect(await count(read, 'SELECT count(*)::int AS n FROM conversations')).toBe(before.conversations);
      expect(await read('SELECT DISTINCT _account AS a FROM conversations')).toEqual([{ a: 'acme' }]);
      expect(await read(`SELECT status FROM conversations WHERE id = '${changed.id}'`)).toEqual([{ status: 'Closed' }]);
      for (const table of TABLE_NAMES) {
        const keys = ['_account', ...TABLES[table]].join(', ');
        expect(
          await count(
            read,
            `SELECT count(*)::int AS n FROM (SELECT ${keys} FROM ${table} GROUP BY ${keys} HAVING count(*) > 1) x`,
          ),
          table,
        ).toBe(0);
      }
      // One pipeline, now at its new destination.
      expect(await read('SELECT account, destination FROM helpdesk_pipelines')).toEqual([
        { account: 'acme', destination: `local directory ${join(dir, 'out', 'acme')}` },
      ]);
    });
    const manifest = JSON.parse(
      readFileSync(
        join(dir, 'out', 'acme', '_manifests', readdirSync(join(dir, 'out', 'acme', '_manifests'))[0]!),
        'utf8',
      ),
    ) as { account: string; summary: { conversations_changed: number } };
    expect(manifest.account).toBe('acme');
    expect(manifest.summary.conversations_changed).toBe(1);
  });
});
