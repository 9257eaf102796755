/**
 * PostgreSQL's merge (src/warehouse/postgres/postgres-dialect.ts) is a DELETE of the
 * stored rows a batch supersedes and a plain INSERT of the latest live rows of keys
 * left unstored. Held against the upsert it replaced (`INSERT … ON CONFLICT DO
 * UPDATE` with a data-modifying CTE for tombstones), on PostgreSQL (PGlite), over
 * batches drawn at random: keys seen once, keys repeated with ties on `_synced_at`
 * broken by `_run_id`, tombstones, and stored rows older, equal and newer than the
 * batch's. Both must leave the same rows, batch after batch; so must the merge of
 * a batch that holds each key once, which takes its rows without ranking them.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, postgresMerge } from '../../../src/warehouse/postgres/postgres-dialect.js';
import { random } from '../../support/seeded-random.js';
import { batchRows } from './random-batches.js';

const COLUMNS =
  'id text, inbox_id text, name text, color text, _synced_at timestamptz, _run_id text, _deleted boolean, _extra jsonb, _account text, PRIMARY KEY (_account, id)';

/** The merge as it was: the latest row per key upserted, a latest tombstone deleting an older stored row. */
function upsert(table: string, source: string): string {
  return [
    'WITH latest AS (',
    `  SELECT DISTINCT ON (_account, id) * FROM ${source} ORDER BY _account, id, _synced_at DESC, _run_id DESC`,
    '), gone AS (',
    `  DELETE FROM ${table} t USING latest s WHERE t._account = s._account AND t.id = s.id AND s._deleted AND s._synced_at >= t._synced_at`,
    ')',
    `INSERT INTO ${table} SELECT * FROM latest WHERE NOT _deleted`,
    'ON CONFLICT (_account, id) DO UPDATE SET inbox_id = EXCLUDED.inbox_id, name = EXCLUDED.name, color = EXCLUDED.color,',
    '  _synced_at = EXCLUDED._synced_at, _run_id = EXCLUDED._run_id, _deleted = EXCLUDED._deleted, _extra = EXCLUDED._extra',
    `  WHERE ${table}._synced_at <= EXCLUDED._synced_at;`,
  ].join('\n');
}

let pg: PGlite;

beforeAll(async () => {
  pg = new PGlite();
  await pg.waitReady;
});

afterAll(async () => {
  await pg.close();
});

async function rowsOf(table: string): Promise<string[]> {
  const { rows } = await pg.query(`SELECT * FROM ${table}`);
  return rows.map((r) => JSON.stringify(r)).sort();
}

/**
 * Merges random batches with `merge` and with the upsert, batch after batch, and
 * compares the rows; `uniqueKeys`: each batch first cut to one row per key (its
 * latest), as `load` merges a batch whose keys it saw once each.
 */
async function holdAgainstUpsert(merge: string, uniqueKeys: boolean): Promise<void> {
  for (const seed of [1, 2, 3]) {
    const next = random(seed);
    let deleted = 0;
    await pg.exec(
      `DROP TABLE IF EXISTS upserted, tags; CREATE TABLE upserted (${COLUMNS}); CREATE TABLE tags (${COLUMNS});`,
    );
    for (let round = 0; round < 4; round++) {
      await pg.exec(`DROP TABLE IF EXISTS batch; CREATE TABLE batch (LIKE tags);
        INSERT INTO batch VALUES ${batchRows(next, 400, round, false)};`);
      if (uniqueKeys) {
        await pg.exec(`DELETE FROM batch b WHERE EXISTS (SELECT 1 FROM batch n WHERE n._account = b._account AND n.id = b.id
          AND (n._synced_at, n._run_id) > (b._synced_at, b._run_id));`);
      }
      const { rows: gone } = await pg.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM upserted u JOIN (
           SELECT DISTINCT ON (_account, id) * FROM batch ORDER BY _account, id, _synced_at DESC, _run_id DESC
         ) l USING (_account, id) WHERE l._deleted AND l._synced_at >= u._synced_at`,
      );
      deleted += gone[0]!.n;
      await pg.exec(upsert('upserted', 'batch'));
      await pg.transaction(async (tx) => {
        await tx.exec(merge);
      });
      const [expected, got] = [await rowsOf('upserted'), await rowsOf('tags')];
      expect(got, `seed ${seed}, batch ${round}`).toEqual(expected);
      expect(expected.length, 'the batches leave rows to compare').toBeGreaterThan(50);
    }
    const { rows } = await pg.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM (SELECT _account, id FROM batch GROUP BY _account, id HAVING count(*) > 1) r',
    );
    if (uniqueKeys) expect(rows[0]!.n, 'the last batch holds each key once').toBe(0);
    else expect(rows[0]!.n, 'the last batch repeats keys').toBeGreaterThan(10);
    expect(deleted, 'tombstones delete stored rows').toBeGreaterThan(5);
  }
}

describe('the PostgreSQL merge', () => {
  it('leaves the same rows as the upsert, over random batches with repeats, ties, tombstones and stored rows of every age', async () => {
    await holdAgainstUpsert(POSTGRES.mergeStatement('tags', 'batch'), false);
  });

  it('of a batch known to hold each key once (no ranking) leaves the same rows as the upsert', async () => {
    const merge = postgresMerge('tags', 'batch', { uniqueKeys: true });
    expect(merge).not.toContain('DISTINCT ON');
    await holdAgainstUpsert(merge, true);
  });
});
