/**
 * What `load` does with output it cannot take whole, on hand-made output (no
 * sandbox): lines a table refuses go to helpdesk_load_errors and the rest of the
 * file loads (DuckDB and PostgreSQL alike); a file that is not the one its
 * manifest lists fails that manifest, and nothing after it is loaded (exit 1);
 * DuckDB's driver missing is a typed error that says how to get it.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/schema.js';
import { LoadDriverMissingError } from '../../../src/errors.js';
import { loadJob } from '../../../src/load/load-job.js';
import type { LoadProgress } from '../../../src/load/load-progress.js';
import { silentLogger } from '../../../src/log.js';
import { runBuiltCli } from '../resilience/support.js';
import { tag, writeTagsRun } from './hand-made-output.js';
import { pgliteConnection, withDuckdb } from './support.js';

let dir: string;
let config: Config;
const logger = silentLogger();

const writeRun = (runId: string, lines: string[], root = dir) => writeTagsRun(root, runId, lines);

const BAD_JSON = '{not json';
const BAD_TIME = tag('t-bad-time', 'not a time');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hs-load-failures-'));
  writeRun('20260101T000000Z-aaaaaa', [tag('t1'), BAD_JSON, tag('t2'), BAD_TIME, tag('t3')]);
  config = parseConfig(
    {
      source: { base_url: 'http://127.0.0.1:9/v1', token: 'not-used' },
      destination: { type: 'local', path: join(dir, 'out') },
    },
    'test',
    {},
  );
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('lines a table refuses', () => {
  it('DuckDB: kept with their error in helpdesk_load_errors; the rest of the file loads', async () => {
    const path = join(dir, 'refused.duckdb');
    const progress: LoadProgress[] = [];
    const summary = await loadJob(config, { into: `duckdb:${path}`, logger, onProgress: (p) => progress.push(p) });
    expect(progress).toEqual([expect.objectContaining({ manifests_total: 1, table: 'tags', rows: 3 })]);
    expect(summary.failure).toBeUndefined();
    expect(summary).toMatchObject({ status: 'succeeded', manifests_loaded: 1 });
    expect(summary.tables.tags).toEqual({ rows: 3, current: 3, errors: 2 });
    await withDuckdb(path, async (read) => {
      expect((await read('SELECT id FROM tags ORDER BY id')).map((r) => r.id)).toEqual(['t1', 't2', 't3']);
      const errors = await read('SELECT table_name, line, error FROM helpdesk_load_errors ORDER BY line');
      expect(errors.map((e) => [e.table_name, e.line])).toEqual([
        ['tags_batch', BAD_TIME],
        ['tags_batch', BAD_JSON],
      ]);
      for (const e of errors) expect(String(e.error)).not.toBe('');
      expect(await read('SELECT row_count, load_errors FROM helpdesk_loaded_manifests')).toEqual([
        { row_count: '3', load_errors: '2' },
      ]);
    });
    // The files are read in place; the split of the refused one happened elsewhere, and the output is as it was.
    expect(readdirSync(join(dir, 'out'), { recursive: true }).sort()).toEqual([
      '_manifests',
      '_manifests/20260101T000000Z-aaaaaa.json',
      'tags',
      'tags/dt=2026-01-01',
      'tags/dt=2026-01-01/20260101T000000Z-aaaaaa-0001.jsonl.gz',
    ]);
  });

  it('PostgreSQL: the same, through the recipe’s helpdesk_land', async () => {
    const pg = new PGlite();
    try {
      const connectPostgres = async () => pgliteConnection(pg);
      const summary = await loadJob(config, { into: 'postgres://pglite/test', logger, connectPostgres });
      expect(summary.tables.tags).toEqual({ rows: 3, current: 3, errors: 2 });
      const errors = await pg.query<{ line: string }>('SELECT line FROM helpdesk_load_errors ORDER BY line');
      expect(errors.rows.map((e) => e.line)).toEqual([BAD_TIME, BAD_JSON]);
    } finally {
      await pg.close();
    }
  });
});

describe('several manifests in one transaction', () => {
  /** Two manifests with a refused line each, loaded in one transaction. */
  function twoRuns(name: string): Config {
    const root = join(dir, name);
    writeRun('20260101T000000Z-aaaaaa', [tag('t1'), BAD_JSON, tag('t2')], root);
    writeRun('20260102T000000Z-bbbbbb', [tag('t1', '2026-01-02T00:00:00.000Z'), tag('t3'), BAD_TIME, tag('t4')], root);
    return parseConfig({ ...config, destination: { type: 'local', path: join(root, 'out') } }, 'test', {});
  }
  const LEDGER = [
    { run_id: '20260101T000000Z-aaaaaa', row_count: '2', load_errors: '1' },
    { run_id: '20260102T000000Z-bbbbbb', row_count: '3', load_errors: '1' },
  ];

  it('DuckDB: each manifest in the ledger with its own rows and refused lines; the later version wins', async () => {
    const path = join(dir, 'two.duckdb');
    const progress: LoadProgress[] = [];
    const summary = await loadJob(twoRuns('two-duckdb'), {
      into: `duckdb:${path}`,
      logger,
      onProgress: (p) => progress.push(p),
    });
    expect(summary).toMatchObject({ status: 'succeeded', manifests_loaded: 2 });
    // One transaction: one progress report for the one table, naming the first and last manifest.
    expect(progress).toEqual([
      expect.objectContaining({ run_id: '20260101T000000Z-aaaaaa', last_run_id: '20260102T000000Z-bbbbbb', rows: 5 }),
    ]);
    expect(summary.tables.tags).toEqual({ rows: 5, current: 4, errors: 2 });
    await withDuckdb(path, async (read) => {
      const ledger = 'SELECT run_id, row_count, load_errors FROM helpdesk_loaded_manifests ORDER BY run_id';
      expect(await read(ledger)).toEqual(LEDGER);
      expect(await read("SELECT _synced_at::VARCHAR AS s FROM tags WHERE id = 't1'")).toEqual([
        { s: '2026-01-02 00:00:00+00' },
      ]);
      expect(await read('SELECT count(*)::INTEGER AS n FROM helpdesk_load_errors')).toEqual([{ n: 2 }]);
    });
  });

  it('PostgreSQL: the same', async () => {
    const pg = new PGlite();
    try {
      const connectPostgres = async () => pgliteConnection(pg);
      const summary = await loadJob(twoRuns('two-pg'), { into: 'postgres://pglite/test', logger, connectPostgres });
      expect(summary.tables.tags).toEqual({ rows: 5, current: 4, errors: 2 });
      const ledger = await pg.query(
        'SELECT run_id, row_count::text, load_errors::text FROM helpdesk_loaded_manifests ORDER BY run_id',
      );
      expect(ledger.rows).toEqual(LEDGER);
      const t1 = await pg.query<{ s: string }>("SELECT _synced_at::text AS s FROM tags WHERE id = 't1'");
      expect(t1.rows).toEqual([{ s: '2026-01-02 00:00:00+00' }]);
    } finally {
      await pg.close();
    }
  });
});

describe('a manifest that cannot be loaded', () => {
  it('a file that is not the one its manifest lists: that manifest and the ones after it wait (exit 1)', async () => {
    const path = join(dir, 'failed.duckdb');
    await loadJob(config, { into: `duckdb:${path}`, logger });
    const altered = writeRun('20270101T000000Z-bbbbbb', [tag('t4')]);
    writeRun('20280101T000000Z-cccccc', [tag('t5')]);
    writeFileSync(altered, gzipSync(`${tag('t4-forged')}\n`));
    const summary = await loadJob(config, { into: `duckdb:${path}`, logger });
    expect(summary).toMatchObject({
      status: 'failed',
      manifests_loaded: 0,
      manifests_loaded_before: 1,
      manifests_pending: 2,
    });
    expect(summary.failure).toMatchObject({ run_id: '20270101T000000Z-bbbbbb', code: 'LOAD_FAILED' });
    expect(summary.failure!.message).toMatch(/is not the file its manifest lists/);
    await withDuckdb(path, async (read) => {
      expect((await read('SELECT id FROM tags ORDER BY id')).map((r) => r.id)).toEqual(['t1', 't2', 't3']);
    });
    const file = join(dir, 'cli.json');
    writeFileSync(file, JSON.stringify({ ...config, load: { into: `duckdb:${path}` } }));
    const cli = await runBuiltCli(['load', '--config', file]);
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stdout).toContain('manifest 20270101T000000Z-bbbbbb not loaded [LOAD_FAILED]');
    expect(cli.stdout).toContain('2 still to load');
  });

  it('in one transaction with others: the manifests before it load, it fails by name, the ones after wait', async () => {
    const root = join(dir, 'together');
    const into = `duckdb:${join(root, 'w.duckdb')}`;
    writeRun('20260101T000000Z-aaaaaa', [tag('t1')], root);
    const altered = writeRun('20270101T000000Z-bbbbbb', [tag('t2')], root);
    writeRun('20280101T000000Z-cccccc', [tag('t3')], root);
    writeFileSync(altered, gzipSync(`${tag('t2-forged')}\n`));
    const together = parseConfig({ ...config, destination: { type: 'local', path: join(root, 'out') } }, 'test', {});
    const summary = await loadJob(together, { into, logger });
    expect(summary).toMatchObject({ status: 'failed', manifests_loaded: 1, manifests_pending: 2 });
    expect(summary.failure).toMatchObject({ run_id: '20270101T000000Z-bbbbbb', code: 'LOAD_FAILED' });
    expect(summary.failure!.message).toMatch(/is not the file its manifest lists/);
    await withDuckdb(join(root, 'w.duckdb'), async (read) => {
      expect((await read('SELECT id FROM tags ORDER BY id')).map((r) => r.id)).toEqual(['t1']);
      expect((await read('SELECT run_id FROM helpdesk_loaded_manifests')).map((r) => r.run_id)).toEqual([
        '20260101T000000Z-aaaaaa',
      ]);
    });
  });

  it('DuckDB not installed: a typed error that says how to get it', async () => {
    const missing = Object.assign(new Error("Cannot find package '@duckdb/node-api'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const load = loadJob(config, {
      into: `duckdb:${join(dir, 'x.duckdb')}`,
      logger,
      importDuckdb: () => Promise.reject(missing),
    });
    await expect(load).rejects.toBeInstanceOf(LoadDriverMissingError);
    await expect(load).rejects.toMatchObject({ code: 'LOAD_DRIVER_MISSING', cause: missing });
    await expect(load).rejects.toThrow(/npm install @duckdb\/node-api/);
  });

  it('a wrong --into is a usage error (exit 64) that names the forms it takes', async () => {
    const file = join(dir, 'usage.json');
    writeFileSync(file, JSON.stringify(config));
    const cli = await runBuiltCli(['load', '--config', file, '--into', 'mysql://db']);
    expect(cli.code).toBe(64);
    expect(cli.stderr).toContain(
      '--into: expected duckdb:<file> (or a path ending in .duckdb or .db) or a postgres:// connection string',
    );
  });
});
