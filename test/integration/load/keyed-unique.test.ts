/**
 * A key is stored once in a keyed table, whatever the load meets: the same key
 * in two manifests, two versions of a key in one batch, a tombstone, an older
 * version after a newer one, a key deleted and created again. DuckDB's keyed
 * tables have no PRIMARY KEY constraint (the merge keeps keys unique), so this
 * is checked on them as they are now, one manifest per transaction and several
 * sharing one, and on a warehouse an earlier schema set made (its keyed tables
 * with the constraint, rebuilt without it by the first load, their rows kept);
 * PostgreSQL (PGlite) keeps its key.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { type LoadJobOptions, loadJob } from '../../../src/load/load-job.js';
import { silentLogger } from '../../../src/log.js';
import { tag, writeTagsRun } from './hand-made-output.js';
import { pgliteConnection, type ReadRows, withDuckdb } from './support.js';

const OLDEST_SET = join(import.meta.dirname, '..', '..', 'fixtures', 'schema-sets', '6db7f5bf401a', 'duckdb.sql');
const at = (hour: number) => `2026-01-01T${String(hour).padStart(2, '0')}:00:00.000Z`;
const logger = silentLogger();

let dir: string;

/** What the keyed table must hold: the latest live version per key. */
const EXPECTED = [
  { id: 't1', _synced_at: at(2) },
  { id: 't3', _synced_at: at(3) },
  { id: 't4', _synced_at: at(4) },
  { id: 't5', _synced_at: at(5) },
];

/** The runs, in order: every key stored by the first meets rows of the later ones. */
const RUNS: Array<[string, string[]]> = [
  ['20260101T000000Z-aaaaaa', [tag('t1', at(0)), tag('t2', at(0)), tag('t3', at(0)), tag('t5', at(5))]],
  // Two versions of t1 in one file; t2 deleted; t4 new.
  ['20260102T000000Z-bbbbbb', [tag('t1', at(1)), tag('t1', at(2)), tag('t2', at(1), true), tag('t4', at(1))]],
  // Older t1 and t5 (never overwrite); t3 again; t4 deleted and created again in one file.
  [
    '20260103T000000Z-cccccc',
    [tag('t1', at(0)), tag('t3', at(3)), tag('t4', at(2), true), tag('t4', at(4)), tag('t5', at(1))],
  ],
];

let outputs = 0;

/**
 * Loads the first run alone, then the two others (sharing one transaction unless
 * `transactionRows` is 1), into the target, from an output of its own.
 */
async function loadInTwoSteps(into: string, options: Partial<LoadJobOptions> = {}): Promise<void> {
  const root = join(dir, `output-${++outputs}`);
  const config = parseConfig(
    {
      source: { base_url: 'http://127.0.0.1:9/v1', token: 'not-used' },
      destination: { type: 'local', path: join(root, 'out') },
    },
    'test',
    {},
  );
  for (const step of [RUNS.slice(0, 1), RUNS.slice(1)]) {
    for (const [runId, lines] of step) writeTagsRun(root, runId, lines);
    const summary = await loadJob(config, { into, logger, ...options });
    expect(summary.status).toBe('succeeded');
    expect(summary.manifests_loaded).toBe(step.length);
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hs-keyed-unique-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function expectOneRowPerKey(read: ReadRows, expected = EXPECTED): Promise<void> {
  expect(await read('SELECT id, count(*) AS n FROM tags GROUP BY id HAVING count(*) > 1')).toEqual([]);
  const rows = await read(
    `SELECT id, strftime(_synced_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.000Z') AS _synced_at FROM tags ORDER BY id`,
  );
  expect(rows).toEqual(expected);
}

describe('keyed tables hold one row per key', () => {
  it.each([
    ['several manifests in one transaction', undefined],
    ['one manifest per transaction', 1],
  ])('DuckDB, %s', async (name, transactionRows) => {
    const path = join(dir, `${name.replaceAll(' ', '-')}.duckdb`);
    await loadInTwoSteps(`duckdb:${path}`, { transactionRows });
    await withDuckdb(path, async (read) => {
      expect(
        await read("SELECT constraint_type FROM duckdb_constraints() WHERE table_name = 'tags'"),
      ).not.toContainEqual({ constraint_type: 'PRIMARY KEY' });
      await expectOneRowPerKey(read);
    });
  });

  it('DuckDB, a warehouse an earlier schema set made with the PRIMARY KEY constraint: rebuilt without it, rows kept', async () => {
    const path = join(dir, 'older.duckdb');
    const stored = { id: 't6', _synced_at: at(6) };
    await withDuckdb(path, async (read) => {
      await read(readFileSync(OLDEST_SET, 'utf8'));
      await read(`INSERT INTO tags VALUES ('t6', 'i1', 'tag t6', '#000000', '${stored._synced_at}', 'r', false, NULL)`);
    });
    await loadInTwoSteps(`duckdb:${path}`);
    await withDuckdb(path, async (read) => {
      expect(
        await read("SELECT constraint_type FROM duckdb_constraints() WHERE table_name = 'tags'"),
      ).not.toContainEqual({ constraint_type: 'PRIMARY KEY' });
      expect(await read("SELECT table_name FROM duckdb_tables() WHERE table_name LIKE '%unkeyed'")).toEqual([]);
      const key = await read(
        "SELECT is_nullable FROM information_schema.columns WHERE table_name = 'report_productivity_daily' AND column_name IN ('inbox_id', 'date')",
      );
      expect(key).toEqual([{ is_nullable: 'NO' }, { is_nullable: 'NO' }]);
      await expectOneRowPerKey(read, [...EXPECTED, stored]);
    });
  });

  it('PostgreSQL (PGlite), which keeps its primary key', async () => {
    const pg = new PGlite();
    const connectPostgres = async () => pgliteConnection(pg);
    await loadInTwoSteps('postgres://pglite/keys', { connectPostgres });
    const read: ReadRows = async (sql) => (await pg.query<Record<string, unknown>>(sql)).rows;
    expect(await read('SELECT id, count(*)::int AS n FROM tags GROUP BY id HAVING count(*) > 1')).toEqual([]);
    const rows = await read(
      `SELECT id, to_char(_synced_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"') AS _synced_at FROM tags ORDER BY id`,
    );
    expect(rows).toEqual(EXPECTED);
    await pg.close();
  });
});
