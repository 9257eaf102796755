import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileColumns } from '../../../src/output/parquet/parquet-columns.js';
import { TABLE_NAMES, TABLES } from '../../../src/output/tables.js';
import { runCli, runProcess } from './cli-run.js';
import { type SyncEnv, startSyncEnv } from './support.js';

/**
 * `destination.format: parquet` end to end: the CLI syncs the sandbox over HTTP
 * into Parquet files, and the same sandbox into gzip JSONL; every table holds the
 * same rows in both (run metadata aside), `verify --output` reads the Parquet
 * back, and an installation without DuckDB is told so before any request.
 */
let env: SyncEnv;
let instance: DuckDBInstance;
let db: DuckDBConnection;
let parquetConfig: string;
const parquetOut = () => join(env.dir, 'parquet-out');

beforeAll(async () => {
  env = await startSyncEnv({ seed: 33, conversations: 40 });
  parquetConfig = env.configFile('parquet.json', {
    destination: { type: 'local', path: parquetOut(), format: 'parquet' },
    state: { path: join(env.dir, 'parquet-state', 'state.sqlite') },
    log: { level: 'error' },
  });
  instance = await DuckDBInstance.create(':memory:');
  db = await instance.connect();
});
afterAll(async () => {
  db?.closeSync();
  instance?.closeSync();
  await env?.close();
});

const query = async (sql: string) => (await db.runAndReadAll(sql)).getRowObjectsJson();

describe('sync with destination.format: parquet', () => {
  it('writes every table as Parquet holding the rows a JSONL sync of the same data holds', async () => {
    const cli = await runCli(['sync', '--config', parquetConfig]);
    expect(cli.code, cli.stderr).toBe(0);
    expect((await env.sync()).summary.status).toBe('succeeded');

    for (const table of TABLE_NAMES) {
      const dataFiles = readdirSync(join(parquetOut(), table), { recursive: true }).map(String);
      expect(dataFiles.some((f) => f.endsWith('.parquet'))).toBe(true);
      expect(dataFiles.some((f) => f.endsWith('.jsonl.gz'))).toBe(false);
      const columns = fileColumns(table)
        .filter((c) => c.name !== '_synced_at' && c.name !== '_run_id')
        .map((c) => c.name)
        .join(', ');
      const order = TABLES[table].join(', ');
      const typed = fileColumns(table)
        .map((c) => `${c.name}: '${typeOf(c.kind)}'`)
        .join(', ');
      const fromParquet = await query(
        `SELECT ${columns} FROM read_parquet('${parquetOut()}/${table}/*/*.parquet', hive_partitioning = false) ORDER BY ${order}`,
      );
      const fromJsonl = await query(
        `SELECT ${columns} FROM read_json('${env.outDir}/${table}/*/*.jsonl.gz', format = 'newline_delimited', ` +
          `hive_partitioning = false, columns = {${typed}}) ORDER BY ${order}`,
      );
      expect(fromParquet.length, table).toBeGreaterThan(0);
      expect(fromParquet, table).toEqual(fromJsonl);
    }
  });

  it('verify --output reads the Parquet files back and finds nothing', async () => {
    const cli = await runCli(['verify', '--config', parquetConfig, '--output', '--sample', '3']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('verify: no unexplained difference');
  });

  it('exits 64 before any request when DuckDB is not installed, saying how to add it', async () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    // An installation without the optional dependency: the sources and every package but @duckdb.
    const install = mkdtempSync(join(tmpdir(), 'hs-no-duckdb-'));
    try {
      for (const name of ['src', 'package.json', 'tsconfig.json']) symlinkSync(join(root, name), join(install, name));
      mkdirSync(join(install, 'node_modules'));
      for (const name of readdirSync(join(root, 'node_modules'))) {
        if (name !== '@duckdb') symlinkSync(join(root, 'node_modules', name), join(install, 'node_modules', name));
      }
      const before = env.sandbox.stats().total;
      const cli = await runProcess(
        process.execPath,
        [
          '--preserve-symlinks',
          '--preserve-symlinks-main',
          '--import',
          join(install, 'node_modules', 'tsx', 'dist', 'loader.mjs'),
          join(install, 'src', 'cli', 'main.ts'),
          'sync',
          '--config',
          parquetConfig,
        ],
        { cwd: install },
      );
      expect(cli.code, cli.stderr).toBe(64);
      expect(cli.stderr + cli.stdout).toContain('destination.format: parquet is written by DuckDB (@duckdb/node-api)');
      expect(cli.stderr + cli.stdout).toContain('npm install @duckdb/node-api');
      expect(env.sandbox.stats().total).toBe(before);
    } finally {
      rmSync(install, { recursive: true, force: true });
    }
  });
});

function typeOf(kind: string): string {
  const types: Record<string, string> = {
    string: 'VARCHAR',
    int: 'BIGINT',
    number: 'DOUBLE',
    bool: 'BOOLEAN',
    timestamp: 'TIMESTAMPTZ',
    date: 'DATE',
    string_array: 'VARCHAR[]',
  };
  return types[kind] ?? 'JSON';
}
