/**
 * `load` against real sync output over HTTP (two syncs, with every kind of change
 * between them): into a DuckDB file, into PostgreSQL through PGlite, and into a
 * real PostgreSQL server through the pg driver (test/support/shared-postgres.ts:
 * every test here needs it). After each sync a load; at the end every keyed table holds exactly
 * the latest non-deleted version per key, equal field by field to the files and
 * (conversations) to what the API lists; every manifest is in the ledger once.
 * DuckDB and the server load directly (no `_raw`, no `_batch` left behind);
 * PGlite keeps `_raw` (load.keep_raw), which holds every row of every file once.
 */
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadJob } from '../../../src/load/load-job.js';
import type { LoadSummary } from '../../../src/load/load-summary.js';
import { silentLogger } from '../../../src/log.js';
import { TABLE_NAMES } from '../../../src/output/tables.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import {
  allConversations,
  changeEveryWayOnOpen,
  type Row,
  readTables,
  type SyncEnv,
  startSyncEnv,
} from '../sync/support.js';
import {
  apiConversationDocs,
  type Dialect,
  expectedDocs,
  manifestsOf,
  ownColumns,
  pgliteConnection,
  type ReadRows,
  tablesOf,
  warehouseDocs,
  withDuckdb,
  withPostgres,
} from './support.js';

const postgres = sharedPostgres({ everyTest: true });
let env: SyncEnv;
let pglite: PGlite;
let duckPath: string;
const summaries: Record<string, LoadSummary[]> = { duckdb: [], pglite: [], postgres: [] };

interface Target {
  name: 'duckdb' | 'pglite' | 'postgres';
  dialect: Dialect;
  read<T>(use: (read: ReadRows) => Promise<T>): Promise<T>;
}
const targets: Target[] = [];

async function loadAll(): Promise<void> {
  const logger = silentLogger();
  const config = env.config();
  summaries.duckdb!.push(await loadJob(config, { into: `duckdb:${duckPath}`, logger }));
  const connectPostgres = async () => pgliteConnection(pglite);
  const keepRaw = env.config({ load: { keep_raw: true } });
  summaries.pglite!.push(await loadJob(keepRaw, { into: 'postgres://pglite/in-process', logger, connectPostgres }));
  const server = postgres.server;
  if (server) summaries.postgres!.push(await loadJob(config, { into: server.url, logger }));
}

beforeAll(async () => {
  env = await startSyncEnv({ seed: 51, conversations: 30 });
  duckPath = join(env.dir, 'warehouse', 'helpdesk.duckdb');
  pglite = new PGlite();
  targets.push(
    { name: 'duckdb', dialect: 'duckdb', read: (use) => withDuckdb(duckPath, use) },
    { name: 'pglite', dialect: 'postgres', read: (use) => use(async (sql) => (await pglite.query<Row>(sql)).rows) },
  );
  // Without the server every test fails (or is skipped) by name: the other targets still load here.
  const url = postgres.server?.url;
  if (url) targets.push({ name: 'postgres', dialect: 'postgres', read: (use) => withPostgres(url, use) });

  expect((await env.sync()).summary.status).toBe('succeeded');
  await loadAll();
  await changeEveryWayOnOpen(env.sandbox);
  expect((await env.sync()).summary.status).toBe('succeeded');
  await loadAll();
  await loadAll(); // nothing new: loads nothing
}, 240_000);

afterAll(async () => {
  await pglite?.close();
  await env?.close();
});

describe('load into DuckDB and PostgreSQL', () => {
  it('each load took the manifests written since the last one, and the last found none', () => {
    for (const [name, list] of Object.entries(summaries)) {
      expect(
        list.map((s) => [s.status, s.manifests_loaded, s.manifests_loaded_before]),
        name,
      ).toEqual([
        ['succeeded', 1, 0],
        ['succeeded', 1, 1],
        ['succeeded', 0, 2],
      ]);
      const last = list.at(-1)!;
      for (const table of TABLE_NAMES)
        expect(last.tables[table].current, `${name} ${table}`).toBe(expectedDocs(env.outDir, table).size);
    }
  });

  it.each(TABLE_NAMES)(
    '%s: every target holds the latest non-deleted version per key, field by field',
    async (table) => {
      const want = expectedDocs(env.outDir, table);
      expect(want.size, 'the syncs wrote rows of this table').toBeGreaterThan(0);
      for (const target of targets) {
        const got = await target.read((read) => warehouseDocs(target.dialect, read, table, table));
        expect(new Set(got.keys()), `${target.name} keys`).toEqual(new Set(want.keys()));
        for (const [key, row] of want) expect(got.get(key), `${target.name} ${table} ${key}`).toEqual(row);
      }
    },
  );

  it('conversations equal what the API lists, field by field, in every target', async () => {
    const fromApi = apiConversationDocs(await allConversations(env.sandbox));
    for (const target of targets) {
      const got = await target.read((read) => warehouseDocs(target.dialect, read, 'conversations', 'conversations'));
      expect(new Set(got.keys()), target.name).toEqual(new Set(fromApi.keys()));
      for (const [id, row] of fromApi)
        expect(ownColumns('conversations', got.get(id)), `${target.name} ${id}`).toEqual(row);
    }
  });

  it('every manifest is in the ledger once; _raw holds every row of every file once where kept, and is absent elsewhere', async () => {
    const manifests = manifestsOf(env.outDir);
    const files = readTables(env.outDir);
    for (const target of targets) {
      await target.read(async (read) => {
        const ledger = await read('SELECT run_id FROM helpdesk_loaded_manifests');
        expect(ledger.map((r) => r.run_id).sort()).toEqual(manifests.map((m) => m.run_id).sort());
        const tables = await tablesOf(target.dialect, read);
        // The tables people query and the bookkeeping named as such: no working table left behind.
        expect(
          tables.filter((t) => t.endsWith('_batch')),
          target.name,
        ).toEqual([]);
        const kept = target.name === 'pglite';
        expect(tables.filter((t) => t.endsWith('_raw')).length, target.name).toBe(kept ? TABLE_NAMES.length : 0);
        for (const table of kept ? TABLE_NAMES : []) {
          const [raw] = await read(`SELECT count(*)::int AS n FROM ${table}_raw`);
          expect(Number(raw!.n), `${target.name} ${table}_raw`).toBe(files[table]?.length ?? 0);
        }
        const [errors] = await read('SELECT count(*)::int AS n FROM helpdesk_load_errors');
        expect(Number(errors!.n)).toBe(0);
      });
    }
  });
});
