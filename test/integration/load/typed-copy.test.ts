/**
 * PostgreSQL's typed COPY (rows typed in Node, copied straight into the batch
 * tables) against the landing path (lines landed as text and typed by the
 * recipe's helpdesk_land), on a real server: the same hand-made output, with a
 * value of every kind in every column, odd ones included (escapes, quotes in
 * arrays, a number a double does not hold, NUL, a lone surrogate, values their
 * column refuses, a CRLF line), loaded once each way into two databases, must
 * give the same rows, the same refused lines with the same reasons, and the
 * same counts. The rows typed in Node are spooled on disk ahead of their COPY:
 * no spool is left open or on disk after a load, whether it succeeded or failed.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ColumnKind } from '../../../src/catalog/columns.js';
import { parseConfig } from '../../../src/config/load.js';
import { loadJob } from '../../../src/load/load-job.js';
import { silentLogger } from '../../../src/log.js';
import type { Manifest } from '../../../src/output/manifest.js';
import { TABLE_SPECS } from '../../../src/output/rows/table-specs.js';
import type { TableName } from '../../../src/output/tables.js';
import { connectWithPg, type SqlConnection } from '../../../src/warehouse/postgres/sql-connection.js';
import { openFilesUnder } from '../../support/open-files.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import { tag, writeTagsRun } from './hand-made-output.js';
import { withPostgres } from './support.js';

const RUN = '20260101T000000Z-typedc';
const TABLES: TableName[] = ['conversations', 'report_productivity_daily', 'holidays', 'tags'];
/** Stands for a number written in the line as text JSON.stringify never writes (more digits than a double holds). */
const BIG = '__big_number__';

/** Ordinary values per kind, and odd ones; every odd one goes in a line of its own. */
const ORDINARY: Record<ColumnKind, unknown> = {
  string: 'plain',
  int: 42,
  number: 1.5,
  bool: true,
  timestamp: '2026-03-01T09:00:00.000Z',
  date: '2026-03-01',
  string_array: ['a', 'b'],
  array: [1, 'two', { three: 3 }],
  object: { a: 1, b: [true, null] },
  json: { any: 'thing' },
};
/** Odd values judged in Node: each either typed there or its line left to the landing path. */
const ODD: Record<ColumnKind, unknown[]> = {
  string: [
    'tab\there',
    'line\nbreak\r',
    'back\\slash \\N \\.',
    'quote" and \'',
    'ünïcødé 😀',
    '',
    '\u0000',
    '\ud800',
    17,
  ],
  int: [0, -5, 2 ** 53 - 1, 2 ** 53 + 2, 1e20, '12', 'twelve', 1.5],
  number: [-0.1, 1e300, 5e-324, 0.30000000000000004, '2.5', true],
  bool: [false, 'true', 'nope', 1],
  timestamp: ['2026-03-01 09:00:00+02', 5],
  date: ['2024-02-29', 20240229],
  string_array: [[], ['q"uote', 'back\\slash', null, 'x,y', '{z}', 'NULL', ''], ['tab\t'], [1, 2], 'not an array'],
  array: [[], [BIG], ['\u0000']],
  object: [{}, { big: BIG }, { nested: { deep: ['\ud800'] } }, { s: 'tab\t "q" \\' }],
  json: [null, 'text', BIG],
};
/** Strings the typed path sends as they are and the server refuses: their file goes through the landing path whole. */
const SERVER_REFUSED: Partial<Record<ColumnKind, unknown[]>> = {
  timestamp: ['2026-13-45T00:00:00Z', 'soon'],
  date: ['2026-02-29', 'never'],
};

/** Lines of a table: an ordinary row, then one per odd value of each column; keys unique from `first` on. */
function linesOf(table: TableName, odd: Partial<Record<ColumnKind, unknown[]>>, first: number): string[] {
  const spec = TABLE_SPECS[table];
  const keys = new Set<string>(spec.primaryKey);
  const row = (n: number, column?: string, value?: unknown) => {
    const out: Record<string, unknown> = {};
    for (const c of spec.columns) {
      if (keys.has(c.name))
        out[c.name] = c.kind === 'date' ? new Date(Date.UTC(2000, 0, 1 + n)).toISOString().slice(0, 10) : `k${n}`;
      else out[c.name] = c.name === column ? value : ORDINARY[c.kind];
    }
    Object.assign(out, {
      _synced_at: '2026-03-02T00:00:00.000Z',
      _run_id: RUN,
      _deleted: false,
      _extra: null,
      _account: 'acme',
    });
    return JSON.stringify(out).replaceAll(`"${BIG}"`, '12345678901234567890.5');
  };
  let n = first;
  const lines = [row(n++)];
  for (const c of spec.columns) {
    if (keys.has(c.name)) continue;
    for (const value of odd[c.kind] ?? []) lines.push(row(n++, c.name, value));
  }
  return lines;
}

/**
 * The hand-made output, one manifest: per table a file of values judged in Node
 * (one line ended by CRLF) and, for tables with dates or timestamps, a file of
 * values the server refuses.
 */
function writeOutput(root: string): number {
  const files = TABLES.flatMap((table) => {
    const judged = linesOf(table, ODD, 0);
    judged[1] = `${judged[1]}\r`;
    const refused = linesOf(table, SERVER_REFUSED, 1000);
    return [judged, ...(refused.length > 1 ? [refused] : [])].map((lines, i) => {
      const key = `${table}/dt=2026-01-01/${RUN}-000${i + 1}.jsonl.gz`;
      const body = gzipSync(`${lines.join('\n')}\n`);
      mkdirSync(join(root, key, '..'), { recursive: true });
      writeFileSync(join(root, key), body);
      const sha256 = createHash('sha256').update(body).digest('hex');
      return { key, table, rows: lines.length, bytes: body.length, sha256, schema_version: 'x', run_id: RUN };
    });
  });
  const tables: Record<string, number> = {};
  for (const f of files) tables[f.table] = (tables[f.table] ?? 0) + f.rows;
  const manifest: Manifest = {
    manifest_version: 1,
    run_id: RUN,
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: '2026-01-01T00:00:01.000Z',
    schema_version: 'x',
    location: 'test',
    files,
    rejected_files: [],
    tables,
    rejected: {},
    account: 'acme',
  };
  mkdirSync(join(root, '_manifests'), { recursive: true });
  writeFileSync(join(root, '_manifests', `${RUN}.json`), JSON.stringify(manifest));
  return files.length - TABLES.length;
}

const logger = silentLogger();
const configOf = (out: string, load?: { keep_raw: boolean }) =>
  parseConfig(
    {
      source: { base_url: 'http://127.0.0.1:9/v1', token: 'not-used' },
      destination: { type: 'local', path: out },
      ...(load ? { load } : {}),
    },
    'test',
    {},
  );
let dir: string;
const postgres = sharedPostgres({ everyTest: true });
/** Files of values the server refuses, each rolled back to its savepoint once on the typed path. */
let refusedFiles: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hs-typed-copy-'));
  refusedFiles = writeOutput(join(dir, 'out'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Everything a load leaves that the two paths must agree on, as text. */
async function contents(url: string): Promise<Record<string, string[]>> {
  return withPostgres(url, async (read) => {
    const out: Record<string, string[]> = {};
    for (const table of TABLES) {
      for (const name of [table, `${table}_raw`]) {
        out[name] = (await read(`SELECT t::text AS r FROM ${name} t ORDER BY 1`)).map((r) => String(r.r));
      }
    }
    out.errors = (await read('SELECT table_name, line, error FROM helpdesk_load_errors ORDER BY 1, 2, 3')).map((r) =>
      JSON.stringify(r),
    );
    return out;
  });
}

describe('typed COPY against the landing path, on a real PostgreSQL server', () => {
  it('gives the same rows, refused lines and counts; the typed path copies into the batch tables', async () => {
    const server = postgres.server!;
    // Every version kept too (load.keep_raw): the two paths must agree on each row as it arrived.
    const config = configOf(join(dir, 'out'), { keep_raw: true });
    const copies: string[] = [];
    const rollbacks: string[] = [];
    const spied = async (url: string): Promise<SqlConnection> => {
      const db = await connectWithPg(url);
      const copyFrom = db.copyFrom!;
      return {
        ...db,
        copyFrom: (sql, batches) => {
          copies.push(sql);
          return copyFrom(sql, batches);
        },
        exec: (sql) => {
          if (sql.startsWith('ROLLBACK TO SAVEPOINT')) rollbacks.push(sql);
          return db.exec(sql);
        },
      };
    };
    const withoutCopy = async (url: string): Promise<SqlConnection> => {
      const { query, exec, close } = await connectWithPg(url);
      return { query, exec, close };
    };
    const urls: Record<string, string> = {};
    const summaries: Record<string, unknown> = {};
    for (const [name, connectPostgres] of [
      ['typed', spied],
      ['landed', withoutCopy],
    ] as const) {
      await withPostgres(server.url, async (read) => void (await read(`CREATE DATABASE ${name}`)));
      urls[name] = server.url.replace(/\/postgres$/, `/${name}`);
      const summary = await loadJob(config, { logger, into: urls[name], connectPostgres });
      expect(summary.failure, name).toBeUndefined();
      summaries[name] = summary.tables;
    }
    for (const table of TABLES) expect(copies.some((sql) => sql.startsWith(`COPY ${table}_batch (`))).toBe(true);
    // Lines the typed path cannot take, and files whose values the server refused, went through the landing table.
    expect(copies.some((sql) => /^copy helpdesk_landing/i.test(sql))).toBe(true);
    // Only the files of values the server refuses fell back whole; the others were typed in Node.
    expect(rollbacks).toHaveLength(refusedFiles);
    expect(refusedFiles).toBeGreaterThan(0);

    const typed = await contents(urls.typed!);
    const landed = await contents(urls.landed!);
    expect(typed).toEqual(landed);
    expect(summaries.typed).toEqual(summaries.landed);
    // The comparison is not of two empty warehouses: ordinary and odd rows both arrived, refused lines both kept.
    expect(typed.conversations!.length).toBeGreaterThan(30);
    expect(typed.errors!.length).toBeGreaterThan(10);
    // A number with more digits than a double holds is kept digit for digit (landed, not typed in Node).
    const object = TABLE_SPECS.conversations.columns.find((c) => c.kind === 'object')!.name;
    const [big] = await withPostgres(urls.typed!, (read) =>
      read(`SELECT count(*)::int AS n FROM conversations WHERE ${object}::text LIKE '%12345678901234567890.5%'`),
    );
    expect(big?.n).toBe(1);
  });
});

describe('the spools of the typed COPY, on a real PostgreSQL server', () => {
  it('are in use during a load, and none is left open or on disk after it fails or succeeds', async () => {
    const server = postgres.server!;
    const spoolDir = join(dir, 'spools');
    mkdirSync(spoolDir);
    await withPostgres(server.url, async (read) => void (await read('CREATE DATABASE spooled')));
    const into = server.url.replace(/\/postgres$/, '/spooled');
    const seen: number[] = [];
    let fail = true;
    const faultPoint = (step: string) => {
      if (step === 'file-staged') seen.push(openFilesUnder(spoolDir).length);
      if (step === 'table-merged' && fail) throw new Error('stopped after the first table');
    };
    const failed = await loadJob(configOf(join(dir, 'out')), { logger, into, spoolDir, faultPoint });
    expect(failed.status).toBe('failed');
    expect(failed.failure?.message).toContain('stopped after the first table');
    // Files were spooled (at the first file's copy, the next ones were encoded or being encoded)…
    expect(Math.max(...seen)).toBeGreaterThan(0);
    // …and none outlived the load: no name in the folder, no handle open.
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(openFilesUnder(spoolDir)).toEqual([]);

    fail = false;
    seen.length = 0;
    const loaded = await loadJob(configOf(join(dir, 'out')), { logger, into, spoolDir, faultPoint });
    expect(loaded.failure).toBeUndefined();
    expect(loaded.manifests_loaded).toBe(1);
    expect(Math.max(...seen)).toBeGreaterThan(0);
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(openFilesUnder(spoolDir)).toEqual([]);
  });
});

describe('the merge of a batch whose keys Node saw, on a real PostgreSQL server', () => {
  it('ranks the rows only when a key repeats or a row went through the landing path, and keeps the latest', async () => {
    const server = postgres.server!;
    const root = join(dir, 'keys');
    await withPostgres(server.url, async (read) => void (await read('CREATE DATABASE keys')));
    const into = server.url.replace(/\/postgres$/, '/keys');
    const merges: string[] = [];
    const connectPostgres = async (url: string): Promise<SqlConnection> => {
      const db = await connectWithPg(url);
      return {
        ...db,
        exec: (sql) => {
          if (sql.startsWith('DELETE FROM tags AS t')) merges.push(sql);
          return db.exec(sql);
        },
      };
    };
    const load = async () => {
      const summary = await loadJob(configOf(join(root, 'out')), { logger, into, connectPostgres });
      expect(summary.failure).toBeUndefined();
      return merges.at(-1)!;
    };
    const current = () =>
      withPostgres(into, (read) => read('SELECT id, name, _synced_at::text AS at FROM tags ORDER BY id'));
    const day = (d: number) => `2026-01-0${d}T00:00:00.000Z`;

    // Two manifests in one transaction, t2 in both: a key repeats, so the batch is ranked.
    writeTagsRun(root, '20260101T000000Z-keys01', [tag('t1', day(1)), tag('t2', day(1)), tag('t3', day(1))]);
    writeTagsRun(root, '20260102T000000Z-keys02', [tag('t2', day(2)), tag('t4', day(2))]);
    expect(await load()).toContain('DISTINCT ON');
    // Each key once (a tombstone among them): taken as they are, yet older stored rows give way.
    writeTagsRun(root, '20260103T000000Z-keys03', [tag('t1', day(3), true), tag('t3', day(3)), tag('t5', day(3))]);
    expect(await load()).not.toContain('DISTINCT ON');
    // Each key once, but a line Node leaves to the landing path (a number where text goes): its key unseen, ranked.
    const landed = JSON.stringify({ ...JSON.parse(tag('t6', day(4))), inbox_id: 17 });
    writeTagsRun(root, '20260104T000000Z-keys04', [tag('t4', day(4)), landed]);
    expect(await load()).toContain('DISTINCT ON');

    expect(await current()).toEqual([
      { id: 't2', name: 'tag t2', at: '2026-01-02 00:00:00+00' },
      { id: 't3', name: 'tag t3', at: '2026-01-03 00:00:00+00' },
      { id: 't4', name: 'tag t4', at: '2026-01-04 00:00:00+00' },
      { id: 't5', name: 'tag t5', at: '2026-01-03 00:00:00+00' },
      { id: 't6', name: 'tag t6', at: '2026-01-04 00:00:00+00' },
    ]);
    expect(merges).toHaveLength(3);
  });
});
