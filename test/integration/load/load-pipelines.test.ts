/**
 * A target knows what it holds, and only real targets are loaded: real syncs
 * against two sandboxes (two sources), two configs of one source (one of them
 * hashing e-mails), loads into DuckDB files and a real PostgreSQL server.
 * - each manifest names its source (GET /me's organization) and, when a column
 *   is hashed, a fingerprint of the key (never the key);
 * - the default target is a DuckDB file beside each config's state, and the
 *   summary line says so;
 * - output of another pipeline (source, destination, privacy policy) is refused
 *   before any row, naming both; `--mix-pipelines` loads it on purpose;
 * - a `duckdb:` path that is an existing non-DuckDB file (JSON, CSV, text named
 *   .duckdb) or a directory is refused and left as it was;
 * - a destination with no output is an error naming the resolved path, from the
 *   API and from a CLI run in another directory, and creates no database.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/schema.js';
import { LoadNoOutputError } from '../../../src/errors.js';
import { loadJob } from '../../../src/load/load-job.js';
import { silentLogger } from '../../../src/log.js';
import { syncJob } from '../../../src/sync/sync-job.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import { runBuiltCli } from '../resilience/support.js';
import { runProcess } from '../sync/cli-run.js';
import { api, type Row, type SyncEnv, startSyncEnv } from '../sync/support.js';
import { manifestsOf, type ReadRows, withDuckdb, withPostgres } from './support.js';

const KEY = 'pipeline-test-hash-key-0123456789';
const logger = silentLogger();
const MAIN = join(import.meta.dirname, '..', '..', '..', 'dist', 'cli', 'main.js');

let one: SyncEnv;
let two: SyncEnv;
const postgres = sharedPostgres();
/** Config A (plain) and B (e-mails hashed, its own output and state) of the first source; C of the second. */
let a: Config;
let b: Config;
let c: Config;

function configOf(env: SyncEnv, name: string, overrides: Record<string, unknown> = {}): Config {
  return env.config({
    destination: { type: 'local', path: join(env.dir, name, 'out') },
    state: { path: join(env.dir, name, 'state.sqlite') },
    ...overrides,
  });
}

const count = async (read: ReadRows, table: string) =>
  Number((await read(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n);

beforeAll(async () => {
  [one, two] = await Promise.all([
    startSyncEnv({ seed: 61, conversations: 6 }),
    startSyncEnv({ seed: 62, conversations: 5 }),
  ]);
  a = configOf(one, 'a');
  b = configOf(one, 'b', { privacy: { contacts: { email: 'hash' } } });
  c = configOf(two, 'c');
  for (const [config, hashKey] of [[a], [b, KEY], [c]] as Array<[Config, string?]>) {
    expect((await syncJob(config, { logger, hashKey })).summary.status).toBe('succeeded');
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
});

const outOf = (config: Config) => (config.destination.type === 'local' ? config.destination.path : '');

describe('the manifest names its pipeline', () => {
  it('source: the base URL and GET /me’s organization; privacy_key: a fingerprint only when a column is hashed', async () => {
    const me = (await api(one.sandbox, 'GET', '/me')) as { data: { organization: Row } };
    const [manifestA] = manifestsOf(outOf(a));
    const [manifestB] = manifestsOf(outOf(b));
    expect(manifestA!.source).toEqual({
      base_url: one.sandbox.baseUrl.replace(/\/+$/, ''),
      organization: { slug: me.data.organization.slug, company: me.data.organization.company },
    });
    expect(typeof me.data.organization.slug).toBe('string');
    expect(manifestA!.privacy_key).toBeUndefined();
    expect(manifestB!.privacy_key).toMatch(/^[0-9a-f]{12}$/);
    expect(readFileSync(join(outOf(b), '_manifests', `${manifestB!.run_id}.json`), 'utf8')).not.toContain(KEY);
    expect(manifestsOf(outOf(c))[0]!.source!.base_url).toBe(two.sandbox.baseUrl.replace(/\/+$/, ''));
  });
});

describe('the default target belongs to the config', () => {
  it('a DuckDB file beside each state, named after it; the summary line says where it came from', async () => {
    const first = await loadJob(a, { logger });
    const second = await loadJob(b, { logger });
    expect(first).toMatchObject({ status: 'succeeded', manifests_loaded: 1, target_origin: 'default' });
    expect(first.target).toBe(`duckdb:${join(one.dir, 'a', 'state.duckdb')}`);
    expect(second.target).toBe(`duckdb:${join(one.dir, 'b', 'state.duckdb')}`);
    const file = join(one.dir, 'a.json');
    writeFileSync(file, JSON.stringify(a));
    const cli = await runBuiltCli(['load', '--config', file]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain(
      `load into duckdb:${join(one.dir, 'a', 'state.duckdb')} (default: beside the state) succeeded`,
    );
    expect(cli.stdout).toContain('0 manifests loaded, 1 loaded before');
  });
});

describe('output of another pipeline', () => {
  it('DuckDB: another config’s output (other destination and privacy policy) is refused before any row, naming both', async () => {
    const into = `duckdb:${join(one.dir, 'a', 'state.duckdb')}`;
    const before = await withDuckdb(join(one.dir, 'a', 'state.duckdb'), (read) => count(read, 'contacts'));
    const refused = await loadJob(b, { logger, into });
    expect(refused).toMatchObject({ status: 'failed', manifests_loaded: 0, manifests_pending: 1 });
    expect(refused.failure?.code).toBe('LOAD_PIPELINE_MISMATCH');
    const message = refused.failure!.message;
    expect(message).toContain('destination, privacy policy differ');
    expect(message).toContain(`output local directory ${outOf(a)}`);
    expect(message).toContain(`output local directory ${outOf(b)}`);
    expect(message).toContain('{"contacts":{"email":"hash"}}');
    expect(message).toContain('--mix-pipelines');
    await withDuckdb(join(one.dir, 'a', 'state.duckdb'), async (read) => {
      expect(await count(read, 'contacts')).toBe(before);
      expect(await count(read, 'helpdesk_loaded_manifests')).toBe(1);
    });

    const mixed = await loadJob(b, { logger, into, mixPipelines: true });
    expect(mixed).toMatchObject({ status: 'succeeded', manifests_loaded: 1 });
    await withDuckdb(join(one.dir, 'a', 'state.duckdb'), async (read) => {
      const held = await read('SELECT destination, privacy_policy FROM helpdesk_pipelines ORDER BY pipeline_id');
      expect(held).toEqual([
        { destination: `local directory ${outOf(a)}`, privacy_policy: 'none' },
        { destination: `local directory ${outOf(b)}`, privacy_policy: '{"contacts":{"email":"hash"}}' },
      ]);
    });
    // Both pipelines are held now: a new run of either loads without the flag.
    expect((await syncJob(b, { logger, hashKey: KEY })).summary.status).toBe('succeeded');
    expect(await loadJob(b, { logger, into })).toMatchObject({ status: 'succeeded', manifests_loaded: 1 });
  });

  it('the CLI: exit 1 with both pipelines named, and --mix-pipelines loads', async () => {
    const into = `duckdb:${join(one.dir, 'cli.duckdb')}`;
    const fileA = join(one.dir, 'cli-a.json');
    const fileC = join(one.dir, 'cli-c.json');
    writeFileSync(fileA, JSON.stringify(a));
    writeFileSync(fileC, JSON.stringify(c));
    expect((await runBuiltCli(['load', '--config', fileA, '--into', into])).code).toBe(0);
    const refused = await runBuiltCli(['load', '--config', fileC, '--into', into]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('[LOAD_PIPELINE_MISMATCH]');
    expect(refused.stdout).toContain(`source ${one.sandbox.baseUrl.replace(/\/+$/, '')}`);
    expect(refused.stdout).toContain(`source ${two.sandbox.baseUrl.replace(/\/+$/, '')}`);
    const mixed = await runBuiltCli(['load', '--config', fileC, '--into', into, '--mix-pipelines']);
    expect(mixed.code, mixed.stdout).toBe(0);
    expect(mixed.stdout).toContain('1 manifest loaded, 1 loaded before');
  });

  it('PostgreSQL (a real server): another source is refused before any row; the flag mixes them', async (ctx) => {
    const { url } = postgres.use(ctx);
    expect(await loadJob(a, { logger, into: url })).toMatchObject({ status: 'succeeded', manifests_loaded: 1 });
    const conversations = await withPostgres(url, (read) => count(read, 'conversations'));
    const refused = await loadJob(c, { logger, into: url });
    expect(refused.failure?.code).toBe('LOAD_PIPELINE_MISMATCH');
    expect(refused.failure!.message).toContain('source, destination differ');
    expect(refused.failure!.message).toContain(`source ${two.sandbox.baseUrl.replace(/\/+$/, '')}`);
    expect(await withPostgres(url, (read) => count(read, 'conversations'))).toBe(conversations);
    const mixed = await loadJob(c, { logger, into: url, mixPipelines: true });
    expect(mixed).toMatchObject({ status: 'succeeded', manifests_loaded: 1 });
    await withPostgres(url, async (read) => {
      expect(await count(read, 'helpdesk_pipelines')).toBe(2);
      expect(await count(read, 'conversations')).toBeGreaterThan(conversations);
    });
  });
});

describe('only real targets', () => {
  it.each([
    ['m.json', '{"a": 1}\n'],
    ['m.csv', 'id,name\n1,x\n'],
    ['notes.duckdb', 'not a database\n'],
  ])('an existing %s that is not a DuckDB database is refused and left as it was', async (name, content) => {
    const path = join(one.dir, name);
    writeFileSync(path, content);
    const load = loadJob(a, { logger, into: `duckdb:${path}` });
    await expect(load).rejects.toMatchObject({ code: 'LOAD_TARGET_INVALID' });
    await expect(load).rejects.toThrow(`${path} exists and is not a DuckDB database`);
    expect(readFileSync(path, 'utf8')).toBe(content);
  });

  it('a directory is refused; the CLI says why and exits 1', async () => {
    const dir = join(one.dir, 'a-directory');
    mkdirSync(dir, { recursive: true });
    const file = join(one.dir, 'dir.json');
    writeFileSync(file, JSON.stringify(a));
    const cli = await runBuiltCli(['load', '--config', file, '--into', `duckdb:${dir}`]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain(`${dir} is a directory, not a DuckDB database file`);
  });
});

describe('a destination with no output', () => {
  it('is an error naming the resolved path, and no database is created', async () => {
    const missing = join(one.dir, 'never-synced', 'out');
    const path = join(one.dir, 'empty.duckdb');
    const load = loadJob(configOf(one, 'never-synced'), { logger, into: `duckdb:${path}` });
    await expect(load).rejects.toBeInstanceOf(LoadNoOutputError);
    await expect(load).rejects.toThrow(`no sync output in local directory ${missing}`);
    expect(existsSync(path)).toBe(false);
  });

  it('`load --config` run from another directory: relative paths resolve from there, and it says so', async () => {
    const project = join(one.dir, 'project');
    const elsewhere = join(one.dir, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    const file = join(project, 'config.json');
    const relative = {
      ...a,
      destination: { ...a.destination, path: './out' },
      state: { path: './state/state.sqlite' },
    };
    mkdirSync(project, { recursive: true });
    writeFileSync(file, JSON.stringify(relative));
    const synced = await runProcess(process.execPath, [MAIN, 'sync', '--config', file], { cwd: project });
    expect(synced.code, synced.stderr).toBe(0);
    const cli = await runProcess(process.execPath, [MAIN, 'load', '--config', file], { cwd: elsewhere });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain(`no sync output in local directory ${join(elsewhere, 'out')}`);
    expect(cli.stderr).toContain(`working directory, ${elsewhere}`);
    expect(existsSync(join(elsewhere, 'state'))).toBe(false);
    const fromProject = await runProcess(process.execPath, [MAIN, 'load', '--config', file], { cwd: project });
    expect(fromProject.code, fromProject.stderr).toBe(0);
    expect(fromProject.stdout).toContain(
      `load into duckdb:${join('state', 'state.duckdb')} (default: beside the state)`,
    );
  });
});
