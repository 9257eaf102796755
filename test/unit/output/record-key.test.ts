import { describe, expect, it } from 'vitest';
import { normalizeRecord } from '../../../src/output/normalize/normalize-record.js';
import { recordKey } from '../../../src/output/rows/record-key.js';
import { TABLE_SPECS } from '../../../src/output/rows/table-specs.js';
import { TABLES, type TableName } from '../../../src/output/tables.js';

describe('recordKey', () => {
  it('reads a key the way the normalizer keys the row: a string, or a finite number as text', () => {
    const key = recordKey('inboxes');
    expect(key({ id: 'i1', name: 'Support' })).toBe('i1');
    expect(key({ id: 42 })).toBe('42');
    for (const missing of [{}, { id: '' }, { id: null }, { id: Number.NaN }, { id: { nested: 1 } }, 'i1', null]) {
      expect(key(missing), JSON.stringify(missing)).toBeUndefined();
    }
  });

  it('joins the parts of a composite key in key order', () => {
    const key = recordKey('report_productivity_daily');
    expect(key({ date: '2026-03-01', inbox_id: 'i1', created_conversations: 2 })).toBe('i1|2026-03-01');
    expect(key({ inbox_id: 'i1' })).toBeUndefined();
  });

  it('agrees with the normalizer on every table: a record it keys becomes a row with that key', () => {
    for (const table of Object.keys(TABLES) as TableName[]) {
      const kindOf = (column: string) => TABLE_SPECS[table].columns.find((c) => c.name === column)?.kind;
      const value = (column: string, i: number) => (kindOf(column) === 'date' ? `2026-03-0${i + 1}` : `k${i}`);
      const record = Object.fromEntries(TABLES[table].map((column, i) => [column, value(column, i)]));
      const normalized = normalizeRecord(table, record, {
        runId: 'r',
        syncedAt: '2026-03-01T00:00:00.000Z',
        account: 'acme',
      });
      expect(normalized.ok, table).toBe(true);
      if (!normalized.ok) continue;
      const fromRow = TABLES[table].map((column) => normalized.row[column]).join('|');
      expect(recordKey(table)(record), table).toBe(fromRow);
    }
  });
});
