/**
 * History mode (load.history) over a sequence of changes made through the sandbox
 * API, one sync and one load per step (status changes, a reply, a contact edit, a
 * trash, a restore, a force-delete), into a DuckDB file and a real PostgreSQL
 * server. Every history table holds one row per version of each key, intervals that
 * neither overlap nor leave a gap, deletions closing the last interval; and "as of"
 * the end of each run the history gives exactly what the API listed then. The dbt
 * model over the history runs as dbt would compile it (its `source()` replaced by
 * the table's name) and sums the intervals the history holds; the history the
 * printed DuckDB script keeps, run after each sync on a file of its own (its
 * recipes bring each table's history up to its batch), equals the one `load` kept.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { renderSchemas } from '../../../src/cli/commands/schemas.js';
import { loadJob } from '../../../src/load/load-job.js';
import { silentLogger } from '../../../src/log.js';
import { TABLE_SPECS } from '../../../src/output/rows/table-specs.js';
import { TABLE_NAMES, TABLES, type TableName } from '../../../src/output/tables.js';
import {
  DBT_HISTORY_DIR,
  DBT_HISTORY_SOURCE,
  historyDbtFiles,
  STATUS_DURATIONS_MODEL,
} from '../../../src/warehouse/history/history-dbt.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import { allConversations, api, type Row, readTables, type SyncEnv, startSyncEnv } from '../sync/support.js';
import {
  apiConversationDocs,
  type Dialect,
  ownColumns,
  type ReadRows,
  warehouseDocs,
  withDuckdb,
  withPostgres,
} from './support.js';

const postgres = sharedPostgres();
let env: SyncEnv;
let duckPath: string;
/** The DuckDB file the printed script (schemas --format duckdb --history) loads after each sync. */
let scriptPath: string;
/** Per run: its end (ISO) and what the API listed then. */
const snapshots: Array<{ at: string; docs: Map<string, Row> }> = [];

interface Target {
  name: string;
  dialect: Dialect;
  read<T>(use: (read: ReadRows) => Promise<T>): Promise<T>;
}
const targets: Target[] = [];

async function syncAndLoad(): Promise<void> {
  expect((await env.sync()).summary.status).toBe('succeeded');
  const config = env.config({ load: { history: true } });
  const logger = silentLogger();
  expect((await loadJob(config, { into: `duckdb:${duckPath}`, logger })).status).toBe('succeeded');
  const server = postgres.server;
  if (server) expect((await loadJob(config, { into: server.url, logger })).status).toBe('succeeded');
  const script = renderSchemas('duckdb', undefined, { location: env.outDir, history: true });
  await withDuckdb(scriptPath, (read) => read(script));
  snapshots.push({ docs: apiConversationDocs(await allConversations(env.sandbox)), at: new Date().toISOString() });
  // The API stamps updated_at to the second: the next change must fall in a later second than this instant.
  await new Promise((resolve) => setTimeout(resolve, 1010 - (Date.now() % 1000)));
}

beforeAll(async () => {
  env = await startSyncEnv({ seed: 52, conversations: 30 });
  duckPath = join(env.dir, 'history.duckdb');
  scriptPath = join(env.dir, 'script.duckdb');
  targets.push({ name: 'duckdb', dialect: 'duckdb', read: (use) => withDuckdb(duckPath, use) });
  const url = postgres.server?.url;
  if (url) targets.push({ name: 'postgres', dialect: 'postgres', read: (use) => withPostgres(url, use) });

  await syncAndLoad();
  const open = (await allConversations(env.sandbox)).filter((c) => c.deleted_at === null && c.status !== 'Closed');
  const [a, b, c, d] = open as [Row, Row, Row, Row];
  const conversation = (row: Row) => `/conversation/${row.id}`;
  const steps: Array<() => Promise<unknown>> = [
    async () => {
      await api(env.sandbox, 'PATCH', conversation(a), { status: 'Closed' });
      await api(env.sandbox, 'PATCH', `/contacts/${(b.contact as Row).id}`, { job_title: 'Head of Data' });
    },
    async () => {
      await api(env.sandbox, 'POST', `${conversation(b)}/draft`, { message: '<p>On it.</p>', cc: [] });
      await api(env.sandbox, 'POST', `${conversation(b)}/reply`, { status: 'Pending' });
      await api(env.sandbox, 'PATCH', conversation(a), { status: 'Active' });
    },
    () => api(env.sandbox, 'DELETE', conversation(c)),
    async () => {
      await api(env.sandbox, 'PATCH', `${conversation(c)}/restore`);
      await api(env.sandbox, 'DELETE', conversation(d));
      await api(env.sandbox, 'DELETE', `${conversation(d)}/force-delete`);
    },
  ];
  for (const step of steps) {
    await step();
    await syncAndLoad();
  }
}, 300_000);

afterAll(async () => {
  await env?.close();
});

const keyOf = (table: TableName, row: Row) => TABLES[table].map((c) => String(row[c])).join('|');
const contentOf = (table: TableName, row: Row) =>
  JSON.stringify([...TABLE_SPECS[table].columns.map((c) => row[c.name] ?? null), row._extra ?? null]);

/** What history must hold per key, from the files: the versions that differ from the one before, and how it ended. */
function expectedVersions(table: TableName): Map<string, { versions: number; deletedAt?: number }> {
  const rows = [...(readTables(env.outDir)[table] ?? [])].sort(
    (x, y) =>
      String(x._synced_at).localeCompare(String(y._synced_at)) || String(x._run_id).localeCompare(String(y._run_id)),
  );
  const out = new Map<string, { versions: number; deletedAt?: number; last?: string }>();
  for (const row of rows) {
    const key = keyOf(table, row);
    const seen = out.get(key) ?? { versions: 0 };
    if (row._deleted === true) {
      if (seen.last !== undefined) seen.deletedAt = Date.parse(String(row._synced_at));
      seen.last = undefined;
    } else {
      const content = contentOf(table, row);
      if (content !== seen.last) seen.versions++;
      seen.last = content;
      seen.deletedAt = undefined;
    }
    out.set(key, seen);
  }
  return new Map([...out].map(([k, v]) => [k, { versions: v.versions, deletedAt: v.deletedAt }]));
}

/** The instant in the documented as-of query, and the query (DuckDB and PostgreSQL run the same text). */
const DOC_INSTANT = '2026-03-31 23:59:59+00';
function documentedAsOf(): string {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'history.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### As-of queries'));
  const query = /```sql\n-- DuckDB and PostgreSQL\n([\s\S]*?)```/.exec(section)?.[1];
  expect(query).toContain(DOC_INSTANT);
  return query!;
}

const epoch = (dialect: Dialect, c: string) =>
  dialect === 'duckdb' ? `epoch_ms(${c})` : `(extract(epoch FROM ${c}) * 1000)::bigint`;

// The targets are known once beforeAll has tried to start the server; without it, each PostgreSQL test fails by name.
describe.each(['duckdb', 'postgres'])('history in %s', (name) => {
  if (name === 'postgres') beforeEach((ctx) => void postgres.use(ctx));
  const target = () => targets.find((t) => t.name === name)!;

  it.each(TABLE_NAMES)(
    '%s_history: one row per version, intervals without overlap or gap, deletions closing the last',
    async (table) => {
      const { dialect } = target();
      const keys = TABLES[table].join(', ');
      const rows = await target().read((read) =>
        read(
          `SELECT ${TABLES[table].map((k) => `${k}::text AS ${k}`).join(', ')}, ${epoch(dialect, 'valid_from')} AS valid_from, ${epoch(dialect, 'valid_to')} AS valid_to, is_current ` +
            `FROM ${table}_history ORDER BY ${keys}, valid_from, _synced_at`,
        ),
      );
      const byKey = new Map<string, Row[]>();
      for (const row of rows) byKey.set(keyOf(table, row), [...(byKey.get(keyOf(table, row)) ?? []), row]);
      const expected = expectedVersions(table);
      const live = [...expected.entries()].filter(([, e]) => e.versions > 0);
      expect([...byKey.keys()].sort(), table).toEqual(live.map(([k]) => k).sort());
      for (const [key, e] of live) {
        const versions = byKey.get(key)!;
        expect(versions.length, `${table} ${key}`).toBe(e.versions);
        for (let i = 0; i + 1 < versions.length; i++) {
          expect(Number(versions[i]!.valid_to), `${table} ${key} #${i}`).toBe(Number(versions[i + 1]!.valid_from));
          expect(versions[i]!.is_current).toBe(false);
        }
        const last = versions.at(-1)!;
        if (e.deletedAt === undefined)
          expect([last.valid_to, last.is_current], `${table} ${key}`).toEqual([null, true]);
        else expect([Number(last.valid_to), last.is_current], `${table} ${key}`).toEqual([e.deletedAt, false]);
      }
    },
  );

  it('as of the end of each run, conversations_history gives what the API listed then', async () => {
    expect(snapshots.length).toBe(5);
    const { dialect } = target();
    for (const [run, { at, docs }] of snapshots.entries()) {
      const asOf =
        `(SELECT *, false AS _deleted FROM conversations_history WHERE valid_from <= CAST('${at}' AS TIMESTAMPTZ) ` +
        `AND (valid_to IS NULL OR valid_to > CAST('${at}' AS TIMESTAMPTZ))) h`;
      const got = await target().read((read) => warehouseDocs(dialect, read, asOf, 'conversations'));
      const own = new Map([...got].map(([k, v]) => [k, ownColumns('conversations', v)]));
      expect(own, `run ${run}`).toEqual(docs);
      // The as-of query docs/history.md gives, at this instant: each conversation's status then.
      const documented = await target().read((read) => read(documentedAsOf().replaceAll(DOC_INSTANT, at)));
      expect(new Map(documented.map((r) => [String(r.id), r.status])), `run ${run}, documented`).toEqual(
        new Map([...docs].map(([id, doc]) => [id, doc.status])),
      );
    }
  });

  it("the dbt model: each conversation's time per status, the sum of its intervals (the current one until now)", async () => {
    const { dialect } = target();
    const model = historyDbtFiles()[`${DBT_HISTORY_DIR}/${STATUS_DURATIONS_MODEL}.sql`]!.replace(
      new RegExp(`\\{\\{\\s*source\\('${DBT_HISTORY_SOURCE}',\\s*'(\\w+)'\\)\\s*\\}\\}`, 'g'),
      '$1',
    );
    const { intervals, rows, before, after } = await target().read(async (read) => {
      const intervals = await read(
        `SELECT id::text AS id, status, ${epoch(dialect, 'valid_from')} AS vf, ${epoch(dialect, 'valid_to')} AS vt FROM conversations_history`,
      );
      const before = Date.now();
      const rows = await read(
        `SELECT conversation_id::text AS id, status, versions::integer AS versions, ${epoch(dialect, 'first_entered_at')} AS first, ` +
          `seconds::float8 AS seconds, is_current_status FROM (${model}) m`,
      );
      return { intervals, rows, before, after: Date.now() };
    });
    const expected = new Map<string, { versions: number; first: number; closedMs: number; openFrom?: number }>();
    for (const i of intervals) {
      const key = `${i.id}|${i.status}`;
      const e = expected.get(key) ?? { versions: 0, first: Number(i.vf), closedMs: 0 };
      e.versions++;
      e.first = Math.min(e.first, Number(i.vf));
      if (i.vt === null) e.openFrom = Number(i.vf);
      else e.closedMs += Number(i.vt) - Number(i.vf);
      expected.set(key, e);
    }
    expect(rows.length).toBe(expected.size);
    expect(rows.some((r) => Number(r.versions) > 1 || r.is_current_status === false)).toBe(true);
    for (const r of rows) {
      const key = `${r.id}|${r.status}`;
      const e = expected.get(key)!;
      expect([Number(r.versions), Number(r.first), r.is_current_status], key).toEqual([
        e.versions,
        e.first,
        e.openFrom !== undefined,
      ]);
      // The current interval counts until the query's now: between the instants before and after it.
      const low = (e.closedMs + (e.openFrom === undefined ? 0 : before - e.openFrom)) / 1000;
      const high = (e.closedMs + (e.openFrom === undefined ? 0 : after - e.openFrom)) / 1000;
      expect(Number(r.seconds), key).toBeGreaterThanOrEqual(low - 0.001);
      expect(Number(r.seconds), key).toBeLessThanOrEqual(high + 0.001);
    }
  });
});

it('the printed script’s history (schemas --history), run after each sync, equals the one load kept', async () => {
  for (const table of TABLE_NAMES) {
    const columns = `${TABLES[table].join(', ')}, _synced_at, _run_id, valid_from, valid_to, is_current`;
    const rows = (path: string) =>
      withDuckdb(path, async (read) => {
        const exists = await read(
          `SELECT count(*)::int AS n FROM duckdb_tables() WHERE table_name = '${table}_history'`,
        );
        if (Number(exists[0]!.n) === 0) return [];
        return (await read(`SELECT ${columns} FROM ${table}_history ORDER BY ALL`)).map((r) => JSON.stringify(r));
      });
    const [kept, printed] = [await rows(duckPath), await rows(scriptPath)];
    expect(printed, table).toEqual(kept);
    if (table === 'conversations') expect(kept.length).toBeGreaterThan(0);
  }
});
