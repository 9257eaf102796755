import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/output/manifest.js';
import { TABLE_NAMES, type TableName } from '../../../src/output/tables.js';
import { renderDdl } from '../../../src/warehouse/ddl.js';
import { DIALECTS } from '../../../src/warehouse/dialects.js';
import { typedColumns } from '../../../src/warehouse/table-columns.js';
import { sampleRecord } from './support/sample-records.js';
import { SessionFixture } from './support/session-fixture.js';

let fx: SessionFixture;
let instance: DuckDBInstance;
let db: DuckDBConnection;
const manifests: Manifest[] = [];

const query = async (sql: string) => (await db.runAndReadAll(sql)).getRowObjectsJson();
const sqlList = (paths: string[]) => `[${paths.map((p) => `'${p.replaceAll("'", "''")}'`).join(', ')}]`;

beforeAll(async () => {
  fx = new SessionFixture();
  // Run 1: three versions-worth of every table.
  const first = await fx.open({ maxRecordsPerFile: 2 });
  for (const table of TABLE_NAMES) for (let n = 1; n <= 3; n++) await first.writeRow(table, sampleRecord(table, n));
  await first.finish();
  // Run 2: an update, tombstones, and a re-sent unchanged row.
  const second = await fx.open();
  await second.writeRow('conversations', { ...sampleRecord('conversations', 1), subject: 'updated', ticket_id: 9 });
  await second.writeRow('conversations', { id: sampleRecord('conversations', 2).id as string }, { deleted: true });
  await second.writeRow('conversations', sampleRecord('conversations', 3));
  const report = sampleRecord('report_productivity_daily', 1);
  await second.writeRow('report_productivity_daily', { ...report, assigned_conversations: 42 });
  await second.writeRow('tags', { id: sampleRecord('tags', 1).id as string }, { deleted: true });
  await second.finish();
  manifests.push(fx.manifest(first.runId), fx.manifest(second.runId));

  instance = await DuckDBInstance.create(':memory:');
  db = await instance.connect();
  await db.run(renderDdl(DIALECTS.duckdb));
  for (const table of TABLE_NAMES) {
    await db.run(`CREATE TABLE ${table}_raw AS SELECT * FROM read_${table}('${join(fx.out, table)}/*/*.jsonl.gz')`);
  }
});

afterAll(() => {
  db?.closeSync();
  instance?.closeSync();
  fx?.close();
});

const duckType = (t: string) => (t === 'TIMESTAMPTZ' ? 'TIMESTAMP WITH TIME ZONE' : t);

describe('output files in DuckDB', () => {
  it.each(TABLE_NAMES)('%s loads with the --format duckdb column types, every row', async (table) => {
    const described = await query(`DESCRIBE ${table}_raw`);
    expect(described.map((c) => [c.column_name, c.column_type])).toEqual(
      typedColumns(DIALECTS.duckdb.types, table).map((c) => [c.name, duckType(c.type)]),
    );
    const listed = manifests.flatMap((m) => m.files).filter((f) => f.table === table);
    const [{ n }] = (await query(`SELECT count(*)::INTEGER AS n FROM ${table}_raw`)) as [{ n: number }];
    expect(n).toBe(listed.reduce((sum, f) => sum + f.rows, 0));
  });

  it('keeps values intact: timestamps, arrays, JSON objects, dates', async () => {
    const c1 = sampleRecord('conversations', 1);
    const [row] = await query(
      `SELECT epoch_ms(updated_at)::BIGINT AS updated_ms, agents, custom_field_values->>'order_number' AS order_number,
              contact_id, len(agents)::INTEGER AS agent_count
       FROM conversations_raw WHERE id = '${c1.id}' AND subject <> 'updated'`,
    );
    expect(row).toEqual({
      updated_ms: String(Date.parse('2026-03-01T10:00:00.123Z')),
      agents: c1.agents,
      order_number: 'A-1',
      contact_id: (c1.contact as { id: string }).id,
      agent_count: 1,
    });
    const [holiday] = await query(`SELECT start_date::VARCHAR AS d FROM holidays_raw LIMIT 1`);
    expect(holiday).toEqual({ d: '2027-01-01' });
  });

  it('the dedup query of docs/output.md gives one row per primary key, latest _synced_at, tombstones removed', async () => {
    const rows = await query(`${DIALECTS.duckdb.dedupQuery('conversations', 'conversations_raw')} ORDER BY ticket_id`);
    const ids = [1, 3].map((n) => sampleRecord('conversations', n).id);
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(rows.find((r) => r.id === ids[0])).toMatchObject({ subject: 'updated', ticket_id: '9' }); // BIGINT reads back as a string
    const reports = await query(
      DIALECTS.duckdb.dedupQuery('report_productivity_daily', 'report_productivity_daily_raw'),
    );
    expect(reports).toHaveLength(3);
    expect(reports.filter((r) => r.assigned_conversations === '42')).toHaveLength(1);
    expect(await query(DIALECTS.duckdb.dedupQuery('tags', 'tags_raw'))).toHaveLength(2);
  });

  it('the MERGE of docs/output.md, applied run by run from the manifests, ends with what the dedup query gives', async () => {
    for (const table of ['conversations', 'tags', 'report_productivity_daily'] as TableName[]) {
      for (const manifest of manifests) {
        const files = manifest.files.filter((f) => f.table === table).map((f) => join(fx.out, f.key));
        if (files.length === 0) continue;
        await db.run(`CREATE OR REPLACE TEMP TABLE batch AS SELECT * FROM read_${table}(${sqlList(files)})`);
        await db.run(DIALECTS.duckdb.mergeStatement(table, 'batch'));
      }
      const keys = ['_synced_at', ...(table === 'report_productivity_daily' ? ['inbox_id', 'date'] : ['id'])];
      const order = `ORDER BY ${keys.join(', ')}`;
      expect(await query(`SELECT * FROM ${table} ${order}`)).toEqual(
        await query(`SELECT * FROM (${DIALECTS.duckdb.dedupQuery(table, `${table}_raw`)}) ${order}`),
      );
    }
  });
});
