/**
 * `load` of Parquet output (destination.format: parquet), two syncs over HTTP with
 * every kind of change between them: into a DuckDB file (read_parquet) and into a
 * real PostgreSQL server (the Parquet rows read back as the JSONL's lines, through
 * COPY). Every keyed table ends with the latest live version per key of the files,
 * field by field; `_raw`, where the load keeps it (load.keep_raw, here on both), with every row once.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadJob } from '../../../src/load/load-job.js';
import { silentLogger } from '../../../src/log.js';
import { createParquetEngine } from '../../../src/output/parquet/parquet-engine.js';
import { TABLE_NAMES, type TableName } from '../../../src/output/tables.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import { changeEveryWayOnOpen, type Row, type SyncEnv, startSyncEnv } from '../sync/support.js';
import { type Dialect, latestDocs, type ReadRows, warehouseDocs, withDuckdb, withPostgres } from './support.js';

const postgres = sharedPostgres();
let env: SyncEnv;
let duckPath: string;
const rowsOf = new Map<TableName, Row[]>();
const overrides = () => ({
  destination: { type: 'local', path: env.outDir, format: 'parquet' },
  load: { keep_raw: true },
});

async function loadAll(): Promise<void> {
  const config = env.config(overrides());
  const logger = silentLogger();
  expect((await loadJob(config, { into: `duckdb:${duckPath}`, logger })).status).toBe('succeeded');
  const server = postgres.server;
  if (server) expect((await loadJob(config, { into: server.url, logger })).status).toBe('succeeded');
}

beforeAll(async () => {
  env = await startSyncEnv({ seed: 51, conversations: 30 });
  duckPath = join(env.dir, 'warehouse.duckdb');
  expect((await env.sync(overrides())).summary.status).toBe('succeeded');
  await loadAll();
  await changeEveryWayOnOpen(env.sandbox);
  expect((await env.sync(overrides())).summary.status).toBe('succeeded');
  await loadAll();
  // What the files hold, read back by the engine as the JSONL's rows.
  const engine = createParquetEngine();
  try {
    for (const table of TABLE_NAMES) {
      const rows: Row[] = [];
      const dir = join(env.outDir, table);
      for (const file of readdirSync(dir, { recursive: true }).map(String).sort()) {
        if (!file.endsWith('.parquet')) continue;
        for await (const line of engine.lines(join(dir, file), table)) rows.push(JSON.parse(line) as Row);
      }
      rowsOf.set(table, rows);
    }
  } finally {
    await engine.close();
  }
}, 240_000);

afterAll(async () => {
  await env?.close();
});

const targets: Array<{ name: string; dialect: Dialect; read: <T>(use: (read: ReadRows) => Promise<T>) => Promise<T> }> =
  [
    { name: 'duckdb', dialect: 'duckdb', read: (use) => withDuckdb(duckPath, use) },
    {
      name: 'postgres',
      dialect: 'postgres',
      read: (use) => withPostgres(postgres.server!.url, use),
    },
  ];

describe('load of Parquet output', () => {
  it('the sync wrote only Parquet data files, with changes and tombstones', () => {
    expect(rowsOf.get('conversations')!.some((r) => r._deleted === true)).toBe(true);
    expect(TABLE_NAMES.filter((t) => rowsOf.get(t)!.length > 0).length).toBeGreaterThan(8);
  });

  it.for(targets.map((t) => [t.name, t] as const))(
    '%s: keyed tables and _raw equal the files',
    async ([name, target], ctx) => {
      if (name === 'postgres') postgres.use(ctx);
      await target.read(async (read) => {
        for (const table of TABLE_NAMES) {
          const expected = latestDocs(table, rowsOf.get(table));
          const got = await warehouseDocs(target.dialect, read, table, table);
          expect(got, `${name} ${table}`).toEqual(expected);
          const [{ n }] = (await read(`SELECT count(*)::int AS n FROM ${table}_raw`)) as [{ n: number }];
          expect(n, `${name} ${table}_raw`).toBe(rowsOf.get(table)!.length);
        }
        expect((await read('SELECT run_id FROM helpdesk_loaded_manifests')).length).toBe(2);
      });
    },
  );
});
