import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { coerceValue } from '../../../src/output/normalize/coerce-value.js';
import { renderDdl } from '../../../src/warehouse/ddl.js';
import { DIALECTS } from '../../../src/warehouse/dialects.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('timestamp precision in the warehouse', () => {
  it('a microsecond timestamp with an offset loads into the DuckDB DDL type with its microseconds', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ts-precision-'));
    const synced = coerceValue('timestamp', '2026-11-01T02:00:00.123456+02:00');
    expect(synced).toBe('2026-11-01T00:00:00.123456Z');
    const row = { id: 't1', inbox_id: 'i', name: 'n', color: null, _synced_at: synced, _run_id: 'r', _deleted: false };
    const file = join(dir, 'tags.jsonl');
    writeFileSync(file, `${JSON.stringify(row)}\n`);
    const instance = await DuckDBInstance.create(':memory:');
    const db = await instance.connect();
    try {
      await db.run("SET TimeZone = 'UTC'");
      await db.run(renderDdl(DIALECTS.duckdb, ['tags']));
      const rows = (
        await db.runAndReadAll(`SELECT epoch_us(_synced_at) AS us FROM read_tags('${file}')`)
      ).getRowObjectsJson();
      expect(String(rows[0]?.us)).toBe(String(Date.parse('2026-11-01T00:00:00Z') * 1000 + 123_456));
    } finally {
      db.closeSync();
      instance.closeSync();
    }
  });
});
