import type { Manifest } from '../../output/manifest.js';
import { TABLE_SPECS } from '../../output/rows/table-specs.js';
import type { TableName } from '../../output/tables.js';
import type { PipelineRecord } from '../pipeline.js';
import type { Expected, SchemaDifference, SchemaReader } from './evolution.js';

/**
 * What the stored rows of a warehouse get for `_account` when evolve adds the
 * column (docs/output.md, "Schema evolution"): the account of the pipeline that
 * wrote them, or why it cannot be told.
 */
export type AccountBackfill = { account: string } | { unknown: string };

/**
 * The account stored rows get when schema evolution adds `_account`: the one
 * account of the pipelines the target holds (each pipeline records the
 * organization it read, which names a single-account sync's rows); for a target
 * that holds none (tables made by the printed scripts), the one account of the
 * manifests being loaded. A target whose pipelines are of several accounts
 * cannot say which row is whose.
 */
export function accountBackfill(
  held: readonly PipelineRecord[],
  pending: readonly Manifest[],
  accountOf: (manifest: Manifest) => string | null,
): AccountBackfill {
  const named = (list: ReadonlyArray<string | null>) => [...new Set(list.filter((a): a is string => a !== null))];
  const recorded = named(held.map((p) => p.account));
  if (recorded.length === 1) return { account: recorded[0]! };
  if (recorded.length > 1) return { unknown: `the target holds the pipelines of accounts ${recorded.join(', ')}` };
  const loading = named(pending.map(accountOf));
  if (loading.length === 1) return { account: loading[0]! };
  return {
    unknown:
      loading.length > 1
        ? `the target records no pipeline, and the output loaded is of accounts ${loading.join(', ')}`
        : 'no pipeline names its account',
  };
}

/**
 * `_account` missing from a table (a warehouse loaded before rows named their
 * account): added NOT NULL, every stored row given the account of the pipeline
 * that wrote it (`backfill`); an empty table needs none. When the account cannot
 * be told and the table holds rows, blocked, with the statements a person runs
 * knowing each row's account.
 */
export async function missingAccount(
  reader: SchemaReader,
  table: string,
  want: Expected,
  backfill: AccountBackfill,
): Promise<SchemaDifference> {
  const base = { table, column: want.column, kind: 'missing' as const, expected: want.catalogType };
  const fill = (value: string | undefined) => reader.evolution.addFilledColumn(table, want.column, want.type, value);
  if ('account' in backfill) return { ...base, change: fill(backfill.account), fix: fill(backfill.account) };
  if ((await reader.count(`SELECT count(*) AS n FROM ${table}`)) === 0)
    return { ...base, change: fill(undefined), fix: fill(undefined) };
  return {
    ...base,
    blocked: `the account of its stored rows cannot be told: ${backfill.unknown}`,
    fix: [
      reader.evolution.addColumn(table, want.column, want.type),
      `UPDATE ${table} SET ${want.column} = '<the account of each row>';`,
      `ALTER TABLE ${table} ALTER COLUMN ${want.column} SET NOT NULL;`,
    ],
  };
}

/** The keyed tables whose primary key is not the row key (`_account` first), with the statements that replace it. */
export async function keyDifferences(reader: SchemaReader, tables: readonly TableName[]): Promise<SchemaDifference[]> {
  const { evolution } = reader;
  if (!reader.primaryKeys || !evolution.replacePrimaryKey) return [];
  const out: SchemaDifference[] = [];
  for (const key of await reader.primaryKeys(tables)) {
    const expected = TABLE_SPECS[key.table as TableName].rowKey;
    if (key.columns.join(',') === expected.join(',')) continue;
    const change = evolution.replacePrimaryKey(key, expected);
    out.push({
      table: key.table,
      column: key.columns.join(', '),
      kind: 'key',
      stored: `(${key.columns.join(', ')})`,
      expected: `(${expected.join(', ')})`,
      change,
      fix: change,
    });
  }
  return out;
}
