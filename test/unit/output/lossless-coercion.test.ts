import { describe, expect, it } from 'vitest';
import { INVALID } from '../../../src/output/normalize/coerce-value.js';
import { coerceLossless } from '../../../src/output/normalize/lossless-coercion.js';
import { normalizeRecord } from '../../../src/output/normalize/normalize-record.js';

describe('coerceLossless: a value of another JSON type that stands for exactly one value of the column', () => {
  it.each([
    ['int', '1001', 1001],
    ['int', '-7', -7],
    ['int', '0', 0],
    ['int', '9007199254740991', 9007199254740991],
    ['number', '12.5', 12.5],
    ['number', '-0.25', -0.25],
    ['number', '3', 3],
    ['number', '123456789012.345', 123456789012.345],
    ['bool', 'true', true],
    ['bool', 'false', false],
    ['bool', 1, true],
    ['bool', 0, false],
    ['bool', '1', true],
    ['bool', '0', false],
  ] as const)('%s column: %j → %j', (kind, value, expected) => {
    expect(coerceLossless(kind, value)).toBe(expected);
  });

  it.each([
    ['int', '01'],
    ['int', ' 1'],
    ['int', '1 '],
    ['int', '1e3'],
    ['int', '9007199254740993'],
    ['int', '1.0'],
    ['int', '+1'],
    ['int', '-0'],
    ['int', ''],
    ['int', '0x10'],
    ['int', true],
    ['number', '1e3'],
    ['number', '.5'],
    ['number', '5.'],
    ['number', '01.5'],
    ['number', 'NaN'],
    ['number', 'Infinity'],
    ['number', '1234567890.1234567'],
    ['bool', 'yes'],
    ['bool', 'TRUE'],
    ['bool', 2],
    ['bool', '01'],
    ['string', 5],
    ['timestamp', 1700000000],
  ] as const)('%s column: %j is refused (nothing is guessed)', (kind, value) => {
    expect(coerceLossless(kind, value)).toBe(INVALID);
  });
});

describe('normalizeRecord with values sent as strings', () => {
  const meta = { runId: 'r', syncedAt: '2026-11-24T00:00:00.000Z' };

  it('types the columns, counts each coercion, and keeps what it refuses in _extra with a note', () => {
    const result = normalizeRecord(
      'conversations',
      { id: 'c1', ticket_id: '1001', messages_count: '3', is_spam: 0 },
      meta,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.row).toMatchObject({ id: 'c1', ticket_id: 1001, messages_count: 3, is_spam: false });
    expect(result.coercedValues).toBe(3);
    expect(result.row._extra).toBeNull();

    const refused = normalizeRecord('conversations', { id: 'c2', ticket_id: '01' }, meta);
    expect(refused.ok).toBe(true);
    if (!refused.ok) return;
    expect(refused.row.ticket_id).toBeNull();
    expect(refused.coercedValues).toBe(0);
    expect(JSON.stringify(refused.row._extra)).toContain('"ticket_id":"01"');
  });
});
