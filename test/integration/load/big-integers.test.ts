/**
 * Integers beyond 2^53 from the API to the warehouse, over real sockets: the
 * sandbox with `big-integers` serves ticket numbers from 2^53 + 1, one beyond
 * 64 bits, and custom field values with integers past 2^53 and past 64 bits;
 * a sync writes gzip JSONL, another Parquet, and each is loaded into DuckDB and
 * PostgreSQL (a real server, and PGlite). Every ticket_id and every nested
 * integer must be the digits the API's answer holds, read from the answer's
 * text and the files' text (JSON.parse would round them: 2^53 + 1 reads as
 * 2^53), and the conversation beyond 64 bits must be in `_rejected/` with its
 * reason and in no table.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadJob } from '../../../src/load/load-job.js';
import type { LoadSummary } from '../../../src/load/load-summary.js';
import { silentLogger } from '../../../src/log.js';
import { createParquetEngine } from '../../../src/output/parquet/parquet-engine.js';
import type { TableName } from '../../../src/output/tables.js';
import { beyondInt64Index, ticketNumber } from '../../../src/sandbox/store/big-integers.js';
import type { SyncSummary } from '../../../src/sync/run-sync.js';
import { verifyJob } from '../../../src/verify/verify-job.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import { type SyncEnv, startSyncEnv } from '../sync/support.js';
import { pgliteConnection, type ReadRows, withDuckdb, withPostgres } from './support.js';

const BEYOND_INT64 = '18446744073709551621';

/** What one conversation carries, as digits: its ticket_id and its custom_field_values.legacy_ids. */
interface Digits {
  ticket: string;
  legacy: string;
}

let env: SyncEnv;
// A real PostgreSQL server (npm's): the tests that read it fail by name when it did not start.
const postgres = sharedPostgres();
/** id → digits, from the text of the API's answers. */
const served = new Map<string, Digits>();
let beyondId: string;
const formats = ['jsonl', 'parquet'] as const;
type Format = (typeof formats)[number];
const outOf = (format: Format) => join(env.dir, `out-${format}`);
const configOf = (format: Format) =>
  env.config({
    destination: { type: 'local', path: outOf(format), ...(format === 'parquet' ? { format: 'parquet' } : {}) },
    state: { path: join(env.dir, `state-${format}.sqlite`) },
  });
const duckPathOf = (format: Format) => join(env.dir, `warehouse-${format}.duckdb`);
/** One database per format on the real server: a target holds the output of one pipeline. */
const postgresUrlOf = (url: string, format: Format) => url.replace(/\/postgres$/, `/big_${format}`);
const loads: Record<string, LoadSummary> = {};
const syncs = new Map<Format, SyncSummary>();
/** What PGlite held after each format's load (one in-process database per format, closed after). */
const pgliteDigits = new Map<Format, Map<string, Digits>>();

/** Every item of every page of POST /search, as the answer's text: item by item, the digits it holds. */
async function readServedDigits(): Promise<void> {
  for (let page = 1; ; page++) {
    const response = await fetch(`${env.sandbox.baseUrl}/search`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-admin', 'content-type': 'application/json' },
      body: JSON.stringify({ page, per_page: 100, sort: 'oldest' }),
    });
    const text = await response.text();
    for (const [id, digits] of itemDigits(text, /\{"id":"([^"]+)","inbox_id":"[^"]+","ticket_id":/g))
      served.set(id, digits);
    if (/"next":null/.test(text)) return;
  }
}

/** Per item of a JSON text (an item starts where `start` matches, its id the first group): its ticket_id and legacy_ids digits. */
function itemDigits(text: string, start: RegExp): Map<string, Digits> {
  const starts = [...text.matchAll(start)];
  const out = new Map<string, Digits>();
  starts.forEach((match, k) => {
    const item = text.slice(match.index, starts[k + 1]?.index ?? text.length);
    const ticket = /"ticket_id":(-?\d+|null)/.exec(item)?.[1] ?? 'absent';
    const legacy = /"legacy_ids":\[([^\]]*)\]/.exec(item)?.[1] ?? 'absent';
    out.set(match[1]!, { ticket, legacy });
  });
  return out;
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.jsonl.gz') || f.endsWith('.parquet'))
    .map((f) => join(dir, f));
}

/** The text of a data file's lines: gzip JSONL as written, Parquet as the engine reads it back for PostgreSQL and verify. */
async function linesOf(path: string, table: TableName): Promise<string> {
  if (path.endsWith('.jsonl.gz')) return gunzipSync(readFileSync(path)).toString('utf8');
  const engine = createParquetEngine();
  try {
    const lines: string[] = [];
    for await (const line of engine.lines(path, table)) lines.push(line);
    return lines.join('\n');
  } finally {
    await engine.close();
  }
}

beforeAll(async () => {
  env = await startSyncEnv({ seed: 61, conversations: 30, quirks: 'big-integers' });
  await readServedDigits();
  const { store } = env.sandbox;
  beyondId = store.conversations.get(beyondInt64Index(store)!).id;
  const logger = silentLogger();
  for (const format of formats) {
    const { summary } = await env.sync({
      destination: configOf(format).destination,
      state: configOf(format).state,
    });
    syncs.set(format, summary);
    const config = configOf(format);
    loads[`${format} duckdb`] = await loadJob(config, { into: `duckdb:${duckPathOf(format)}`, logger });
    const server = postgres.server;
    if (server) {
      const url = server.url;
      await withPostgres(url, (read) => read(`CREATE DATABASE big_${format}`));
      loads[`${format} postgres`] = await loadJob(config, { into: postgresUrlOf(url, format), logger });
    }
    const pglite = new PGlite();
    try {
      const connectPostgres = async () => pgliteConnection(pglite);
      loads[`${format} pglite`] = await loadJob(config, {
        into: 'postgres://pglite/in-process',
        logger,
        connectPostgres,
      });
      pgliteDigits.set(
        format,
        await postgresDigits(async (sql) => (await pglite.query<Record<string, unknown>>(sql)).rows),
      );
    } finally {
      await pglite.close();
    }
  }
}, 240_000);

afterAll(async () => {
  await env?.close();
});

/** Served digits of every conversation but the one beyond 64 bits: what every table must hold. */
function expectedRows(): Map<string, Digits> {
  return new Map([...served].filter(([id]) => id !== beyondId));
}

async function postgresDigits(read: ReadRows): Promise<Map<string, Digits>> {
  const rows = await read(
    `SELECT id, ticket_id::text AS ticket, (custom_field_values->'legacy_ids')::text AS legacy FROM conversations`,
  );
  // jsonb prints an array with a space after each comma.
  return new Map(
    rows.map((r) => [
      String(r.id),
      { ticket: String(r.ticket), legacy: String(r.legacy).slice(1, -1).replace(/ /g, '') },
    ]),
  );
}

async function duckdbDigits(read: ReadRows): Promise<Map<string, Digits>> {
  const rows = await read(
    `SELECT id, ticket_id::VARCHAR AS ticket, json_extract(custom_field_values, '$.legacy_ids')::VARCHAR AS legacy FROM conversations`,
  );
  return new Map(rows.map((r) => [String(r.id), { ticket: String(r.ticket), legacy: String(r.legacy).slice(1, -1) }]));
}

describe('big-integers: every integer exact from the API to the warehouse', () => {
  it('the API serves ticket numbers past 2^53, one past 64 bits, and nested integers past both, as exact digits', () => {
    const { store } = env.sandbox;
    expect(served.size).toBeGreaterThan(10);
    expect(served.get(beyondId)?.ticket).toBe(BEYOND_INT64);
    for (const [id, digits] of served) {
      const state = store.conversations.get(store.conversations.indexOf(id)!);
      expect(digits.ticket, id).toBe(String(ticketNumber(store, state)));
      expect(BigInt(digits.ticket) > 2n ** 53n, id).toBe(true);
      expect(digits.legacy.split(','), id).toHaveLength(3);
    }
    // Among them integers a double would round (2^53 + 1 reads as 2^53).
    const rounded = [...served.values()].filter((d) => String(JSON.parse(d.ticket)) !== d.ticket);
    expect(rounded.length).toBeGreaterThan(5);
  });

  it.each(formats)(
    '%s: every conversation row holds the served digits; the one past 64 bits is in no table file',
    async (format) => {
      const written = new Map<string, Digits>();
      for (const path of files(outOf(format))) {
        const key = relative(outOf(format), path);
        if (key.startsWith('_')) continue;
        const table = key.split('/')[0] as TableName;
        const text = await linesOf(path, table);
        expect(text.includes(BEYOND_INT64), key).toBe(false);
        if (table !== 'conversations') continue;
        for (const [id, digits] of itemDigits(text, /\{"id":"([^"]+)","inbox_id":/g)) written.set(id, digits);
      }
      expect(written).toEqual(expectedRows());
    },
  );

  it.each(formats)(
    '%s: the record past 64 bits is in _rejected/, with the column and the digits in its reason',
    (format) => {
      const dir = join(outOf(format), '_rejected', 'conversations');
      const lines = files(dir).flatMap((path) =>
        gunzipSync(readFileSync(path)).toString('utf8').split('\n').filter(Boolean),
      );
      expect(lines).toHaveLength(1);
      const line = lines[0]!;
      expect(line).toContain(
        `"reason":"ticket_id: ${BEYOND_INT64} is beyond what a signed 64-bit integer (BIGINT) holds"`,
      );
      expect(line).toContain(`"raw":{"id":"${beyondId}",`);
      expect(line).toContain(`"ticket_id":${BEYOND_INT64},`);
      expect(line).toContain(`"legacy_ids":[${served.get(beyondId)!.legacy}]`);
    },
  );

  it('every load succeeded and refused no line', (ctx) => {
    postgres.use(ctx);
    const expected = ['jsonl duckdb', 'jsonl pglite', 'parquet duckdb', 'parquet pglite'];
    expected.push('jsonl postgres', 'parquet postgres');
    expect(Object.keys(loads).sort()).toEqual(expected.sort());
    for (const [name, load] of Object.entries(loads)) {
      const { current, errors } = load.tables.conversations;
      expect([load.status, current, errors], name).toEqual(['succeeded', served.size - 1, 0]);
    }
  });

  it.each(formats)('%s: DuckDB holds the served digits in its BIGINT column and inside JSON', async (format) => {
    const got = await withDuckdb(duckPathOf(format), duckdbDigits);
    expect(got).toEqual(expectedRows());
  });

  it.for(formats)(
    '%s: PostgreSQL (a real server, and PGlite) holds the served digits in bigint and jsonb',
    async (format, ctx) => {
      const server = postgres.use(ctx);
      expect(pgliteDigits.get(format)).toEqual(expectedRows());
      const url = postgresUrlOf(server.url, format);
      expect(await withPostgres(url, postgresDigits)).toEqual(expectedRows());
      const errors = await withPostgres(url, (read) => read('SELECT count(*)::int AS n FROM helpdesk_load_errors'));
      expect(errors[0]?.n).toBe(0);
    },
  );

  it('verify finds the output equal to the API, field by field, and the rejected record explained', async () => {
    const report = await verifyJob(configOf('jsonl'), { output: true, sample: served.size, logger: silentLogger() });
    expect(report.sampled).toBe(served.size);
    expect(report.findings.filter((f) => !f.explained)).toEqual([]);
    const rejected = report.findings.find((f) => f.kind === 'rejected');
    expect([rejected?.subject, rejected?.examples]).toEqual(['conversations', [beyondId]]);
  });
});
