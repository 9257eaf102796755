import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutputSession } from '../../../src/commit/output-session.js';
import type { Manifest } from '../../../src/output/manifest.js';
import type { OutputFormat } from '../../../src/output/object-keys.js';
import { fileColumns } from '../../../src/output/parquet/parquet-columns.js';
import { createParquetEngine } from '../../../src/output/parquet/parquet-engine.js';
import type { ColumnKind } from '../../../src/output/rows/table-spec.js';
import { TABLE_NAMES, type TableName } from '../../../src/output/tables.js';
import { readJsonlGz } from './support/read-jsonl-gz.js';
import { readParquet } from './support/read-parquet.js';
import { sampleRecord } from './support/sample-records.js';
import { SessionFixture } from './support/session-fixture.js';

/**
 * The same rows written once as gzip JSONL and once as Parquet, by two output
 * sessions with the same clock and run id: the Parquet files must hold exactly
 * the JSONL's rows, typed as the row specs say, read by DuckDB and by hyparquet
 * (a reader that shares no code with the writer).
 */
const fixtures = {} as Record<OutputFormat, SessionFixture>;
const manifests = {} as Record<OutputFormat, Manifest>;
let instance: DuckDBInstance;
let db: DuckDBConnection;

async function writeRows(session: OutputSession): Promise<void> {
  for (const table of TABLE_NAMES) for (let n = 1; n <= 5; n++) await session.writeRow(table, sampleRecord(table, n));
  // Values the contract treats specially: microseconds, NUL (replaced), a wrong type (kept in _extra), nulls.
  await session.writeRow('conversations', {
    ...sampleRecord('conversations', 6),
    subject: 'nul \u0000 here',
    updated_at: '2026-03-01T08:00:00.123456Z',
    ticket_id: 'not a number',
    agents: null,
    custom_field_values: { nested: { deep: [1, 'two', null] } },
  });
  await session.writeRow('messages', { ...sampleRecord('messages', 7), cc: [], source_extra: undefined });
  await session.writeRow('report_productivity_daily', {
    ...sampleRecord('report_productivity_daily', 8),
    avg_replies_to_resolution: 2.5,
  });
  // Tombstones: the key, every other column null.
  await session.writeRow('conversations', { id: sampleRecord('conversations', 2).id as string }, { deleted: true });
  const report = sampleRecord('report_productivity_daily', 3);
  await session.writeRow(
    'report_productivity_daily',
    { inbox_id: report.inbox_id, date: report.date },
    { deleted: true },
  );
}

beforeAll(async () => {
  for (const format of ['jsonl', 'parquet'] as const) {
    const fx = new SessionFixture();
    fixtures[format] = fx;
    const session = await fx.open({ format, maxRecordsPerFile: 4 });
    await writeRows(session);
    await session.finish();
    manifests[format] = fx.manifest(session.runId);
  }
  instance = await DuckDBInstance.create(':memory:');
  db = await instance.connect();
});

afterAll(() => {
  db?.closeSync();
  instance?.closeSync();
  for (const fx of Object.values(fixtures)) fx.close();
});

const query = async (sql: string) => (await db.runAndReadAll(sql)).getRowObjectsJson();
const files = (format: OutputFormat, table: TableName) =>
  manifests[format].files.filter((f) => f.table === table).map((f) => join(fixtures[format].out, f.key));
const list = (paths: string[]) => `[${paths.map((p) => `'${p}'`).join(', ')}]`;

/** What DuckDB reports for each kind of column read from the Parquet files. */
const DUCKDB_TYPE: Record<ColumnKind, string> = {
  string: 'VARCHAR',
  int: 'BIGINT',
  number: 'DOUBLE',
  bool: 'BOOLEAN',
  timestamp: 'TIMESTAMP WITH TIME ZONE',
  date: 'DATE',
  string_array: 'VARCHAR[]',
  array: 'JSON',
  object: 'JSON',
  json: 'JSON',
};

describe('Parquet output', () => {
  it('lists the same rows per file as JSONL, with the .parquet ending, under the same layout', () => {
    const shape = (m: Manifest) => m.files.map((f) => [f.key.replace(/\.(jsonl\.gz|parquet)$/, ''), f.table, f.rows]);
    expect(shape(manifests.parquet)).toEqual(shape(manifests.jsonl));
    expect(manifests.parquet.files.every((f) => /^[a-z_]+\/dt=2026-11-22\/[^/]+-\d{4}\.parquet$/.test(f.key))).toBe(
      true,
    );
    expect(manifests.parquet.tables).toEqual(manifests.jsonl.tables);
  });

  it.each(TABLE_NAMES)(
    '%s: DuckDB reads every column with its type, and the same rows in the same order',
    async (table) => {
      const parquet = `read_parquet(${list(files('parquet', table))}, hive_partitioning = false)`;
      const described = await query(`DESCRIBE SELECT * FROM ${parquet}`);
      expect(described.map((c) => [c.column_name, c.column_type])).toEqual(
        fileColumns(table).map((c) => [c.name, DUCKDB_TYPE[c.kind]]),
      );
      const columns = fileColumns(table)
        .map((c) => `${c.name}: '${DUCKDB_TYPE[c.kind].replace('TIMESTAMP WITH TIME ZONE', 'TIMESTAMPTZ')}'`)
        .join(', ');
      const jsonl = `read_json(${list(files('jsonl', table))}, format = 'newline_delimited', hive_partitioning = false, columns = {${columns}})`;
      const rowsOf = async (from: string) => (await query(`SELECT * FROM ${from}`)).map((r) => JSON.stringify(r));
      const fromJsonl = await rowsOf(jsonl);
      expect(fromJsonl.length).toBeGreaterThan(4);
      expect(await rowsOf(parquet)).toEqual(fromJsonl);
    },
  );

  it('stores int64, timestamps in microseconds UTC, lists of strings and JSON, zstd-compressed', async () => {
    const file = files('parquet', 'conversations')[0]!;
    const schema = await query(`SELECT name, type, converted_type, logical_type FROM parquet_schema('${file}')`);
    const of = (name: string) => schema.find((s) => s.name === name)!;
    expect(of('ticket_id')).toMatchObject({ type: 'INT64' });
    expect(of('updated_at')).toMatchObject({ type: 'INT64', converted_type: 'TIMESTAMP_MICROS' });
    expect(String(of('updated_at').logical_type)).toContain('isAdjustedToUTC=1');
    expect(of('_deleted')).toMatchObject({ type: 'BOOLEAN' });
    expect(of('agents')).toMatchObject({ converted_type: 'LIST' });
    expect(of('custom_field_values')).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'JSON' });
    expect(of('_extra')).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'JSON' });
    const report = files('parquet', 'report_productivity_daily')[0]!;
    const reportSchema = await query(`SELECT name, type, converted_type FROM parquet_schema('${report}')`);
    expect(reportSchema.find((s) => s.name === 'date')).toMatchObject({ type: 'INT32', converted_type: 'DATE' });
    const codecs = await query(`SELECT DISTINCT compression FROM parquet_metadata('${file}')`);
    expect(codecs).toEqual([{ compression: 'ZSTD' }]);
  });

  it.each(TABLE_NAMES)('%s: hyparquet reads the JSONL rows, value for value', async (table) => {
    const kinds = new Map(fileColumns(table).map((c) => [c.name, c.kind]));
    const parquetRows: Record<string, unknown>[] = [];
    for (const path of files('parquet', table)) parquetRows.push(...(await readParquet(path)));
    const jsonlRows = files('jsonl', table).flatMap((path) => readJsonlGz(path));
    expect(parquetRows.map((row) => fromParquet(row, kinds))).toEqual(jsonlRows.map((row) => fromJsonl(row, kinds)));
  });
});

describe('Parquet read back as JSON lines (what PostgreSQL and verify read)', () => {
  it.each(TABLE_NAMES)('%s: the lines equal the JSONL lines of the same rows', async (table) => {
    const engine = createParquetEngine();
    try {
      const lines: unknown[] = [];
      for (const path of files('parquet', table))
        for await (const line of engine.lines(path, table)) lines.push(JSON.parse(line));
      expect(lines).toEqual(files('jsonl', table).flatMap((path) => readJsonlGz(path)));
    } finally {
      await engine.close();
    }
  });
});

/** Microseconds since the epoch of an output timestamp (`…T08:00:00.123Z` or `…T08:00:00.123456Z`). */
function micros(iso: string): bigint {
  const fraction = /\.(\d+)Z$/.exec(iso)?.[1] ?? '';
  return BigInt(Date.parse(iso.replace(/\.\d+Z$/, 'Z'))) * 1000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
}

/** A JSONL row in the values both readers agree on: timestamps in microseconds, dates as text. */
function fromJsonl(row: Record<string, unknown>, kinds: Map<string, ColumnKind>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k, v !== null && kinds.get(k) === 'timestamp' ? micros(v as string) : v]),
  );
}

function fromParquet(row: Record<string, unknown>, kinds: Map<string, ColumnKind>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => {
      if (v === null || v === undefined) return [k, null];
      const kind = kinds.get(k);
      if (kind === 'int') return [k, Number(v)];
      if (kind === 'timestamp') return [k, BigInt(v as bigint)];
      if (kind === 'date') return [k, (v as Date).toISOString().slice(0, 10)];
      return [k, v];
    }),
  );
}
