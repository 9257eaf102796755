/**
 * The BigQuery and Snowflake scripts cannot be run here, so every statement printed
 * for them is parsed by sqlparser-rs (Apache DataFusion's SQL parser, through its
 * WASM build @guanmingchiu/sqlparser-ts) in that warehouse's dialect, and the
 * partitioning and clustering are read from the syntax tree. Two limits of the
 * parser: it has no BigQuery `LOAD DATA` (those statements are checked by shape
 * only, below), and it does not end a Snowflake `COPY INTO` at `;`, so statements
 * are split on `;` at the end of a line and parsed one at a time. The DuckDB and
 * PostgreSQL scripts are executed instead (test/integration/output/warehouse-load).
 */
import { init, parse } from '@guanmingchiu/sqlparser-ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderSchemas } from '../../../src/cli/commands/schemas.js';
import { TABLE_NAMES, TABLES, type TableName } from '../../../src/output/tables.js';
import { DIALECTS } from '../../../src/warehouse/dialects.js';
import { SNOWFLAKE_CLUSTERED } from '../../../src/warehouse/snowflake/snowflake-dialect.js';
import { renderWarehouseScript } from '../../../src/warehouse/warehouse-script.js';

type Node = Record<string, unknown>;
type Statement = Record<string, Node>;

beforeAll(async () => {
  await init();
});

function statements(script: string): string[] {
  return script
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s.replace(/^--.*$/gm, '').trim() !== '');
}

const LOAD_DATA =
  /^(?:--.*\n)*LOAD DATA INTO (\w+)_batch FROM FILES \(format = 'JSON', max_bad_records = 100,\n {2}uris = \['gs:\/\/[^']+\/(\w+)\/\*'\]\)$/;
const LOAD_PARQUET =
  /^(?:--.*\n)*LOAD DATA INTO (\w+)_batch FROM FILES \(format = 'PARQUET', enable_list_inference = true,\n {2}uris = \['gs:\/\/[^']+\/(\w+)\/\*\.parquet'\]\)$/;

/** Parses each statement alone; returns the syntax trees, and the LOAD DATA statements set aside. */
function parseAll(dialect: 'bigquery' | 'snowflake', script: string): { trees: Statement[]; loads: string[] } {
  const trees: Statement[] = [];
  const loads: string[] = [];
  for (const sql of statements(script)) {
    if (dialect === 'bigquery' && (LOAD_DATA.test(sql) || LOAD_PARQUET.test(sql))) {
      loads.push(sql);
      continue;
    }
    const parsed = parse(sql, dialect) as Statement[];
    expect(parsed, sql).toHaveLength(1);
    trees.push(parsed[0]!);
  }
  return { trees, loads };
}

const kinds = (trees: Statement[]) => trees.map((t) => Object.keys(t)[0]!);
const count = (list: string[], kind: string) => list.filter((k) => k === kind).length;
const identifiers = (node: unknown): string[] => JSON.stringify(node ?? null).match(/(?<="value":")[^"]+/g) ?? [];
const nameOf = (create: Node) => identifiers(create.name).join('.');

describe('BigQuery script, parsed', () => {
  it('every statement parses; per table two CREATE TABLE (keyed, batch), a load and a MERGE, no _raw', () => {
    const { trees, loads } = parseAll('bigquery', renderWarehouseScript(DIALECTS.bigquery));
    const list = kinds(trees);
    expect(count(list, 'CreateTable')).toBe(2 * TABLE_NAMES.length);
    for (const kind of ['Truncate', 'Merge']) expect(count(list, kind), kind).toBe(TABLE_NAMES.length);
    expect(list).toHaveLength(4 * TABLE_NAMES.length);
    expect(renderWarehouseScript(DIALECTS.bigquery)).not.toContain('_raw');
    expect(loads.map((l) => l.match(LOAD_DATA)!.slice(1))).toEqual(TABLE_NAMES.map((t) => [t, t]));
  });

  it('keyed tables: PARTITION BY DATE(_synced_at), CLUSTER BY the key; _batch neither', () => {
    const { trees } = parseAll('bigquery', renderWarehouseScript(DIALECTS.bigquery));
    for (const tree of trees.filter((t) => t.CreateTable)) {
      const create = tree.CreateTable!;
      const name = nameOf(create);
      const table = name.replace(/_(raw|batch)$/, '') as TableName;
      if (name.endsWith('_batch')) {
        expect(create.partition_by ?? null, name).toBeNull();
        expect(create.cluster_by ?? null, name).toBeNull();
      } else {
        expect(identifiers(create.partition_by), name).toEqual(['DATE', '_synced_at']);
        expect(identifiers(create.cluster_by), name).toEqual(['_account', ...TABLES[table]]);
      }
    }
  });

  it('the --merge output parses', () => {
    expect(kinds(parseAll('bigquery', renderSchemas('bigquery', undefined, { merge: true })).trees)).toEqual(
      TABLE_NAMES.flatMap(() => ['Query', 'Merge']),
    );
  });
});

describe('Snowflake script, parsed', () => {
  it('every statement parses; per table two CREATE TABLE (keyed, batch), DELETE, COPY INTO and a MERGE, no _raw', () => {
    const list = kinds(parseAll('snowflake', renderWarehouseScript(DIALECTS.snowflake)).trees);
    expect(count(list, 'CreateTable')).toBe(2 * TABLE_NAMES.length);
    for (const kind of ['Delete', 'CopyIntoSnowflake', 'Merge'])
      expect(count(list, kind), kind).toBe(TABLE_NAMES.length);
    expect(list).toHaveLength(5 * TABLE_NAMES.length);
    expect(renderWarehouseScript(DIALECTS.snowflake)).not.toContain('_raw');
  });

  it('CLUSTER BY the key on the large keyed tables only', () => {
    const { trees } = parseAll('snowflake', renderWarehouseScript(DIALECTS.snowflake));
    const clustered = trees
      .filter((t) => t.CreateTable && identifiers(t.CreateTable.cluster_by).length > 0)
      .map((t) => [nameOf(t.CreateTable!), identifiers(t.CreateTable!.cluster_by)]);
    expect(clustered).toEqual([...SNOWFLAKE_CLUSTERED].map((t) => [t, ['_account', ...TABLES[t]]]));
  });

  it('COPY INTO reads the stage path of its table, matching JSON by column name, skipping bad lines', () => {
    const copies = parseAll(
      'snowflake',
      renderWarehouseScript(DIALECTS.snowflake, ['tags'], '@my_stage/prefix/'),
    ).trees.filter((t) => t.CopyIntoSnowflake);
    expect(copies).toHaveLength(1);
    const copy = copies[0]!.CopyIntoSnowflake!;
    expect(identifiers(copy.into)).toEqual(['tags_batch']);
    expect(identifiers(copy.from_obj)).toEqual(['@my_stage/prefix/tags/']);
    expect(JSON.stringify(copy.copy_options)).toMatch(/ON_ERROR/);
  });

  it('the --merge output parses', () => {
    expect(kinds(parseAll('snowflake', renderSchemas('snowflake', undefined, { merge: true })).trees)).toEqual(
      TABLE_NAMES.flatMap(() => ['Query', 'Merge']),
    );
  });
});

describe('the Parquet variant of the scripts (--files parquet)', () => {
  it('BigQuery loads each table from its .parquet files, lists read as arrays; the rest parses as before', () => {
    const { trees, loads } = parseAll('bigquery', renderSchemas('bigquery', undefined, { files: 'parquet' }));
    expect(trees).toHaveLength(4 * TABLE_NAMES.length);
    expect(loads.map((l) => l.match(LOAD_PARQUET)?.slice(1))).toEqual(TABLE_NAMES.map((t) => [t, t]));
  });

  it('Snowflake COPY INTO reads each column of the Parquet rows, parsing JSON columns, from .parquet files', () => {
    const { trees } = parseAll('snowflake', renderSchemas('snowflake', 'conversations', { files: 'parquet' }));
    const copies = trees.filter((t) => t.CopyIntoSnowflake);
    expect(copies).toHaveLength(1);
    const text = renderSchemas('snowflake', 'conversations', { files: 'parquet' });
    expect(text).toContain("PATTERN = '.*[.]parquet'");
    expect(text).toContain("PARSE_JSON(GET($1, 'custom_field_values')::VARCHAR)");
    expect(text).toContain("GET($1, 'updated_at')::TIMESTAMP_TZ");
    expect(text).toContain('USE_LOGICAL_TYPE = TRUE');
  });
});

describe('history in the scripts (--history)', () => {
  const created = (trees: Statement[]) =>
    trees.filter((t) => t.CreateTable && identifiers(t.CreateTable.name).join('.').endsWith('_history'));

  it.each(['bigquery', 'snowflake'] as const)(
    '%s: after each named table’s merge, its history brought up to the batch as load does it (the versions in a temporary step, the intervals they close, the rows they add), and it parses',
    (dialect) => {
      const { trees } = parseAll(
        dialect,
        renderSchemas(dialect, undefined, { history: ['conversations', 'contacts'] }),
      );
      // Per history table: its CREATE TABLE IF NOT EXISTS, the step (CREATE OR REPLACE TEMP TABLE), an UPDATE and an INSERT.
      expect(trees).toHaveLength((dialect === 'bigquery' ? 4 : 5) * TABLE_NAMES.length + 2 * 4);
      const history = created(trees);
      expect(history.map((t) => nameOf(t.CreateTable!))).toEqual(['conversations_history', 'contacts_history']);
      for (const t of history) expect(t.CreateTable!.if_not_exists).toBe(true);
      const list = kinds(trees);
      expect(count(list, 'Update')).toBe(2);
      expect(count(list, 'Insert')).toBe(2);
      const step = trees.filter((t) => t.CreateTable && nameOf(t.CreateTable) === 'helpdesk_history_step');
      expect(step).toHaveLength(2);
      for (const t of step) expect([t.CreateTable!.temporary, t.CreateTable!.or_replace]).toEqual([true, true]);
      const all = created(parseAll(dialect, renderSchemas(dialect, undefined, { history: true })).trees);
      expect(all.map((t) => nameOf(t.CreateTable!))).toEqual(TABLE_NAMES.map((t) => `${t}_history`));
    },
  );

  it('PostgreSQL and DuckDB: the history statements run in the recipe’s transaction, before its COMMIT', () => {
    for (const dialect of ['postgres', 'duckdb'] as const) {
      const text = renderSchemas(dialect, 'tags', { history: true });
      const history = text.indexOf('CREATE TABLE IF NOT EXISTS tags_history');
      expect(history, dialect).toBeGreaterThan(text.indexOf('INSERT INTO tags ('));
      expect(history, dialect).toBeLessThan(text.lastIndexOf('COMMIT;'));
      expect(text).not.toContain('_raw');
    }
  });

  it('an unknown table, a JSON Schema or --merge with --history is a usage error', () => {
    expect(() => renderSchemas('duckdb', undefined, { history: ['nope'] })).toThrow(/--history: unknown table nope/);
    expect(() => renderSchemas('jsonschema', undefined, { history: true })).toThrow(/warehouse --format/);
    expect(() => renderSchemas('duckdb', undefined, { history: true, merge: true })).toThrow(/without --merge/);
  });
});
