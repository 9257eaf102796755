/**
 * DuckDB's merge (src/warehouse/duckdb/duckdb-merge.ts) ranks only the keys a batch
 * holds more than once (the key `(_account, id)`, an id in two accounts two keys),
 * and finds the stored keys of the batch before it holds
 * the batch's rows against them. Held against the merge that ranks every row and
 * checks each with a correlated NOT EXISTS (its form before), on real DuckDB, over batches drawn at random: keys seen once, keys
 * repeated with ties on `_synced_at` broken by `_run_id`, tombstones, NULL keys,
 * and stored rows older, equal and newer than the batch's. Both must leave the
 * same rows, batch after batch.
 */
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckdbMerge } from '../../../src/warehouse/duckdb/duckdb-merge.js';
import { random } from '../../support/seeded-random.js';
import { batchRows } from './random-batches.js';

const COLUMNS =
  'id VARCHAR, inbox_id VARCHAR, name VARCHAR, color VARCHAR, _synced_at TIMESTAMPTZ, _run_id VARCHAR, _deleted BOOLEAN, _extra JSON, _account VARCHAR';

/** The merge's INSERT as it was: every row of the batch ranked. */
function rankEveryRow(table: string, source: string): string {
  return [
    `DELETE FROM ${table} AS t USING ${source} AS s WHERE t._account = s._account AND t.id = s.id AND s._synced_at >= t._synced_at;`,
    `INSERT INTO ${table} SELECT * FROM (`,
    `  SELECT * FROM ${source} QUALIFY ROW_NUMBER() OVER (PARTITION BY _account, id ORDER BY _synced_at DESC, _run_id DESC) = 1`,
    `) AS s WHERE NOT s._deleted AND NOT EXISTS (SELECT 1 FROM ${table} AS t WHERE t._account = s._account AND t.id = s.id);`,
  ].join('\n');
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
          `CREATE OR REPLACE TABLE batch (${COLUMNS}); INSERT INTO batch VALUES ${batchRows(next, 400, round, true)};`,
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
        'SELECT count(*) FROM (SELECT _account, id FROM batch GROUP BY _account, id HAVING count(*) > 1)',
      );
      expect(Number(repeated.getRows()[0]![0]), 'the last batch repeats keys').toBeGreaterThan(10);
      const shared = await db.runAndReadAll(
        'SELECT count(*) FROM (SELECT id FROM ranked_repeats GROUP BY id HAVING count(DISTINCT _account) = 2)',
      );
      expect(Number(shared.getRows()[0]![0]), 'an id kept in both accounts, as two rows').toBeGreaterThan(10);
    }
  });
});
