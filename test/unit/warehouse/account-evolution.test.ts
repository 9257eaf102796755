import { describe, expect, it } from 'vitest';
import { DUCKDB } from '../../../src/warehouse/duckdb/duckdb-dialect.js';
import { DUCKDB_EVOLUTION } from '../../../src/warehouse/duckdb/duckdb-evolution.js';
import type { AccountBackfill } from '../../../src/warehouse/evolution/account-evolution.js';
import type { CatalogColumn, StoredKey } from '../../../src/warehouse/evolution/evolution.js';
import { applyContract, compareSchema, type SchemaReader } from '../../../src/warehouse/evolution/schema-contract.js';
import { POSTGRES } from '../../../src/warehouse/postgres/postgres-dialect.js';
import { POSTGRES_EVOLUTION } from '../../../src/warehouse/postgres/postgres-evolution.js';
import { typedColumns } from '../../../src/warehouse/table-columns.js';

/** A warehouse whose `tags` tables hold every column but `_account`, with `rows` rows, and PostgreSQL's key on id. */
function olderTags(engine: 'duckdb' | 'postgres', rows: number): SchemaReader {
  const evolution = engine === 'duckdb' ? DUCKDB_EVOLUTION : POSTGRES_EVOLUTION;
  const types = engine === 'duckdb' ? DUCKDB.types : POSTGRES.types;
  const columns = typedColumns(types, 'tags').filter((c) => c.name !== '_account');
  const kinds = new Map(Object.entries(types).map(([kind, type]) => [type, kind as keyof typeof types]));
  const catalog: CatalogColumn[] = ['tags', 'tags_raw'].flatMap((table) =>
    columns.map((c) => ({ table, column: c.name, type: evolution.catalogTypes[kinds.get(c.type)!] })),
  );
  const keys: StoredKey[] = [{ table: 'tags', constraint: 'tags_pkey', columns: ['id'] }];
  return {
    describe: `${engine}:test`,
    dialectTypes: types,
    evolution,
    catalog: async () => catalog,
    ...(engine === 'postgres' ? { primaryKeys: async () => keys } : {}),
    count: async () => rows,
  };
}

/** The load keeps `_raw` (load.keep_raw), so it evolves those tables too. */
const changes = async (reader: SchemaReader, backfill: AccountBackfill) => {
  const differences = (await compareSchema(reader, ['tags'], { backfill, raw: true })).filter(
    (d) => !d.table.startsWith('helpdesk'),
  );
  return { differences, decision: applyContract(differences, 'evolve', { target: reader.describe, schemaSet: 's' }) };
};

describe('_account added by schema evolution', () => {
  it('PostgreSQL: added NOT NULL, stored rows given the pipeline’s account, then the key replaced', async () => {
    const { decision } = await changes(olderTags('postgres', 5), { account: 'acme' });
    expect(decision).toEqual({
      statements: [
        "ALTER TABLE tags ADD COLUMN _account text NOT NULL DEFAULT 'acme';",
        'ALTER TABLE tags ALTER COLUMN _account DROP DEFAULT;',
        "ALTER TABLE tags_raw ADD COLUMN _account text NOT NULL DEFAULT 'acme';",
        'ALTER TABLE tags_raw ALTER COLUMN _account DROP DEFAULT;',
        'ALTER TABLE tags DROP CONSTRAINT "tags_pkey";',
        'ALTER TABLE tags ADD PRIMARY KEY (_account, id);',
      ],
    });
  });

  it('DuckDB: the default fills the stored rows, then NOT NULL; no key to replace', async () => {
    const { decision } = await changes(olderTags('duckdb', 5), { account: 'acme' });
    expect('statements' in decision && decision.statements.slice(0, 3)).toEqual([
      "ALTER TABLE tags ADD COLUMN _account VARCHAR DEFAULT 'acme';",
      'ALTER TABLE tags ALTER COLUMN _account DROP DEFAULT;',
      'ALTER TABLE tags ALTER COLUMN _account SET NOT NULL;',
    ]);
  });

  it('an account that cannot be told: empty tables take the column as it is; tables with rows stop the load, saying what to run', async () => {
    const unknown = { unknown: 'the target holds the pipelines of accounts acme, globex' };
    const empty = await changes(olderTags('postgres', 0), unknown);
    expect('statements' in empty.decision && empty.decision.statements[0]).toBe(
      'ALTER TABLE tags ADD COLUMN _account text NOT NULL;',
    );
    const held = await changes(olderTags('postgres', 3), unknown);
    expect('refusal' in held.decision).toBe(true);
    if (!('refusal' in held.decision)) return;
    expect(held.decision.refusal).toContain(
      'tags._account: missing (expected text): the account of its stored rows cannot be told: the target holds the pipelines of accounts acme, globex',
    );
    expect(held.decision.refusal).toContain("  UPDATE tags SET _account = '<the account of each row>';");
    expect(held.decision.refusal).toContain('  ALTER TABLE tags ALTER COLUMN _account SET NOT NULL;');
  });
});
