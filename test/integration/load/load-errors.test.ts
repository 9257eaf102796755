/**
 * Errors of `load` that point the right way, on hand-made output, DuckDB and a
 * real PostgreSQL server: a file the manifest lists but the destination lacks is
 * named as missing (not "ENOENT"); an altered one as altered; a warehouse that
 * refuses a statement is named with its manifest, table and files; a connection
 * URL that cannot be parsed, or whose host does not resolve, says how to
 * percent-encode a user or password, and never echoes the password.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/schema.js';
import { loadJob } from '../../../src/load/load-job.js';
import { silentLogger } from '../../../src/log.js';
import type { Manifest } from '../../../src/output/manifest.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import { runBuiltCli } from '../resilience/support.js';
import { withDuckdb, withPostgres } from './support.js';

const logger = silentLogger();
const postgres = sharedPostgres();
let dir: string;

const tag = (id: string, color = '#000000') =>
  JSON.stringify({
    id,
    inbox_id: 'i1',
    name: `tag ${id}`,
    color,
    _synced_at: '2026-01-01T00:00:00.000Z',
    _run_id: 'r',
    _deleted: false,
    _extra: null,
    _account: 'acme',
  });

/** An output directory with one manifest of one tags file; returns its config and the file's key and path. */
function output(name: string, runId: string, lines: string[]): { config: Config; key: string; path: string } {
  const out = join(dir, name);
  const key = `tags/dt=2026-01-01/${runId}-0001.jsonl.gz`;
  const body = gzipSync(`${lines.join('\n')}\n`);
  const path = join(out, key);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, body);
  const sha256 = createHash('sha256').update(body).digest('hex');
  const file = {
    key,
    table: 'tags',
    rows: lines.length,
    bytes: body.length,
    sha256,
    schema_version: 'x',
    run_id: runId,
  };
  const manifest: Manifest = {
    manifest_version: 1,
    run_id: runId,
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: '2026-01-01T00:00:01.000Z',
    schema_version: 'x',
    location: `local directory ${out}`,
    files: [file],
    rejected_files: [],
    tables: { tags: lines.length },
    rejected: {},
    account: 'acme',
  };
  mkdirSync(join(out, '_manifests'), { recursive: true });
  writeFileSync(join(out, '_manifests', `${runId}.json`), JSON.stringify(manifest));
  const config = parseConfig(
    { source: { base_url: 'http://127.0.0.1:9/v1', token: 'not-used' }, destination: { type: 'local', path: out } },
    'test',
    {},
  );
  return { config, key, path };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hs-load-errors-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The targets of one test: a fresh DuckDB file, and a fresh database on the real server. */
async function targets(ctx: TestContext, name: string): Promise<string[]> {
  const server = postgres.use(ctx);
  await withPostgres(server.url, async (read) => void (await read(`CREATE DATABASE ${name}`)));
  return [`duckdb:${join(dir, `${name}.duckdb`)}`, server.url.replace(/\/postgres$/, `/${name}`)];
}

describe('files named as what they are', () => {
  it('a file the manifest lists but the destination lacks is named as missing, with the table and where', async (ctx) => {
    const { config, key, path } = output('missing', '20260101T000000Z-aaaaaa', [tag('t1')]);
    rmSync(path);
    for (const into of await targets(ctx, 'missing_file')) {
      const summary = await loadJob(config, { logger, into });
      expect(summary.failure?.message, into).toBe(
        `file ${key} (table tags) is missing from local directory ${join(dir, 'missing')}: the manifest lists it, so it ` +
          'was deleted or moved after the sync wrote it; restore it, or sync its rows again with --full-refresh',
      );
    }
  });

  it('an altered file is named as altered', async (ctx) => {
    const { config, key, path } = output('altered', '20260101T000000Z-bbbbbb', [tag('t1')]);
    writeFileSync(path, gzipSync(`${tag('t1-forged')}\n`));
    for (const into of await targets(ctx, 'altered_file')) {
      const summary = await loadJob(config, { logger, into });
      expect(summary.failure?.message, into).toMatch(
        new RegExp(
          `^file ${key} \\(table tags\\) was altered since the sync wrote it: it is not the file its manifest lists`,
        ),
      );
    }
  });
});

describe('a statement the warehouse refuses', () => {
  it('names the manifest, the table and its files beside the warehouse’s own error', async (ctx) => {
    const { config, key } = output('refused', '20260101T000000Z-cccccc', [tag('t1', '#bad')]);
    for (const into of await targets(ctx, 'refused_statement')) {
      // A warehouse whose keyed table refuses the color: a constraint a person added.
      const duck = into.startsWith('duckdb:');
      const ddl = `CREATE TABLE tags (id ${duck ? 'VARCHAR' : 'text'} PRIMARY KEY, inbox_id ${duck ? 'VARCHAR' : 'text'}, name ${duck ? 'VARCHAR' : 'text'}, color ${duck ? 'VARCHAR' : 'text'} CHECK (color <> '#bad'), _synced_at TIMESTAMPTZ NOT NULL, _run_id ${duck ? 'VARCHAR' : 'text'} NOT NULL, _deleted BOOLEAN NOT NULL, _extra ${duck ? 'JSON' : 'jsonb'})`;
      if (duck) await withDuckdb(into.slice('duckdb:'.length), async (read) => void (await read(ddl)));
      else await withPostgres(into, async (read) => void (await read(ddl)));
      const summary = await loadJob(config, { logger, into });
      const engine = duck ? 'DuckDB' : 'PostgreSQL';
      expect(summary.failure?.message, into).toMatch(
        new RegExp(
          `^${engine} refused manifest 20260101T000000Z-cccccc, table tags \\(file ${key}\\): .*(?:CHECK|check)`,
          's',
        ),
      );
    }
  });
});

describe('connection URLs', () => {
  it('a password with an unencoded @ is refused before anything, saying how to encode it, without echoing it', async () => {
    const { config } = output('url', '20260101T000000Z-dddddd', [tag('t1')]);
    const file = join(dir, 'url.json');
    writeFileSync(file, JSON.stringify(config));
    const cli = await runBuiltCli([
      'load',
      '--config',
      file,
      '--into',
      'postgres://loader:s3cr@t-pass@127.0.0.1:5432/wh',
    ]);
    expect(cli.code).toBe(64);
    expect(cli.stderr).toContain(
      '--into: not a valid connection URL: a user or password holding @ : / ? # % or a space must be percent-encoded (@ is %40',
    );
    expect(cli.stdout + cli.stderr).not.toContain('s3cr');
    const inConfig = join(dir, 'url-in-config.json');
    writeFileSync(inConfig, JSON.stringify({ ...config, load: { into: 'postgres://loader:pa#ss@db/wh' } }));
    const invalid = await runBuiltCli(['load', '--config', inConfig]);
    expect(invalid.code).toBe(64);
    expect(invalid.stderr).toContain('load.into: not a valid connection URL: a user or password holding');
    expect(invalid.stdout + invalid.stderr).not.toContain('pa#ss');
  });

  it('a host that does not resolve says so, with the encoding hint, and the password stays out', async () => {
    const { config } = output('host', '20260101T000000Z-eeeeee', [tag('t1')]);
    const load = loadJob(config, { logger, into: 'postgres://loader:hunter2-secret@no-such-host.invalid:5432/wh' });
    await expect(load).rejects.toThrow(
      /could not connect to PostgreSQL at postgres:\/\/loader:\*\*\*@no-such-host\.invalid:5432\/wh: .*the host does not resolve; check it, and note that a user or password holding @/,
    );
    await expect(load).rejects.not.toThrow(/hunter2/);
  });
});
