/**
 * DuckDB's merge (src/warehouse/duckdb/duckdb-merge.ts) ranks only the keys a batch
 * holds more than once, and finds the stored keys of the batch before it holds
 * the batch's rows against them. Held against the merge that ranks every row and
 * checks each with a correlated NOT EXISTS (its form before), on real DuckDB, over batches drawn at random: keys seen once, keys
 * repeated with ties on `_synced_at` broken by `_run_id`, tombstones, NULL keys,
 * and stored rows older, equal and newer than the batch's. Both must leave the
 * same rows, batch after batch.
 */
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckdbMerge } from '../../../src/warehouse/duckdb/duckdb-merge.js';

const COLUMNS =
  'id VARCHAR, inbox_id VARCHAR, name VARCHAR, color VARCHAR, _synced_at TIMESTAMPTZ, _run_id VARCHAR, _deleted BOOLEAN, _extra JSON';

/** The merge's INSERT as it was: every row of the batch ranked. */
function rankEveryRow(table: string, source: string): string {
  return [
    `DELETE FROM ${table} AS t USING ${source} AS s WHERE t.id = s.id AND s._synced_at >= t._synced_at;`,
    `INSERT INTO ${table} SELECT * FROM (`,
    `  SELECT * FROM ${source} QUALIFY ROW_NUMBER() OVER (PARTITION BY id ORDER BY _synced_at DESC, _run_id DESC) = 1`,
    `) AS s WHERE NOT s._deleted AND NOT EXISTS (SELECT 1 FROM ${table} AS t WHERE t.id = s.id);`,
  ].join('\n');
}

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

let instance: DuckDBInstance;
let db: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  db = await instance.connect();
});

afterAll(() => {
  db.closeSync();
  instance.closeSync();
});

/** A batch of `n` rows: ids from a small pool (so some repeat), one in twenty NULL, three distinct times. */
function batchRows(next: () => number, n: number, round: number): string {
  const rows: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = next() < 0.05 ? 'NULL' : `'c-${Math.floor(next() * n * 0.8)}'`;
    const at = `TIMESTAMPTZ '2026-01-0${1 + Math.floor(next() * 3)} 00:00:00+00'`;
    // Unique per row: two rows of a key never tie on both, where either merge may keep either.
    const run = `'run-${round}-${String(Math.floor(next() * 1000)).padStart(3, '0')}-${i}'`;
    const deleted = next() < 0.15 ? 'true' : 'false';
    rows.push(`(${id}, 'inbox', 'name ${round}-${i}', 'red', ${at}, ${run}, ${deleted}, NULL)`);
  }
  return rows.join(',\n');
}

async function rowsOf(table: string): Promise<string[]> {
  const reader = await db.runAndReadAll(`SELECT * FROM ${table}`);
  return reader
    .getRowsJson()
    .map((r) => JSON.stringify(r))
    .sort();
}

describe('the DuckDB merge', () => {
  it('leaves the same rows as ranking every row of the batch, over random batches with repeats, ties, tombstones and NULL keys', async () => {
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      await db.run(
        `CREATE OR REPLACE TABLE ranked_all (${COLUMNS}); CREATE OR REPLACE TABLE ranked_repeats (${COLUMNS});`,
      );
      for (let round = 0; round < 4; round++) {
        await db.run(
          `CREATE OR REPLACE TABLE batch (${COLUMNS}); INSERT INTO batch VALUES ${batchRows(next, 400, round)};`,
        );
        await db.run(rankEveryRow('ranked_all', 'batch'));
        // duckdbMerge names its target by the table's name: run it against a copy named `tags`.
        await db.run('CREATE OR REPLACE TABLE tags AS SELECT * FROM ranked_repeats;');
        await db.run(duckdbMerge('tags', 'batch'));
        await db.run('CREATE OR REPLACE TABLE ranked_repeats AS SELECT * FROM tags;');
        const [expected, got] = [await rowsOf('ranked_all'), await rowsOf('ranked_repeats')];
        expect(got, `seed ${seed}, batch ${round}`).toEqual(expected);
        expect(expected.length, 'the batches leave rows to compare').toBeGreaterThan(50);
      }
      const repeated = await db.runAndReadAll(
        'SELECT count(*) FROM (SELECT id FROM batch GROUP BY id HAVING count(*) > 1)',
      );
      expect(Number(repeated.getRows()[0]![0]), 'the last batch repeats keys').toBeGreaterThan(10);
    }
  });
});
