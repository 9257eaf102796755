import { describe, expect, it } from 'vitest';
import { INVALID, OUT_OF_RANGE } from '../../../src/output/normalize/coerce-value.js';
import { coerceLossless } from '../../../src/output/normalize/lossless-coercion.js';
import { normalizeRecord } from '../../../src/output/normalize/normalize-record.js';

describe('coerceLossless: a value of another JSON type that stands for exactly one value of the column', () => {
  it.each([
    ['int', '1001', 1001],
    ['int', '-7', -7],
    ['int', '0', 0],
    ['int', '9007199254740991', 9007199254740991],
    // Beyond 2^53 an integer is a bigint of its digits, up to what a BIGINT holds.
    ['int', '9007199254740993', 9007199254740993n],
    ['int', '-9007199254740993', -9007199254740993n],
    ['int', '9223372036854775807', 9223372036854775807n],
    ['int', '-9223372036854775808', -9223372036854775808n],
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
  ] as const)('%s column: %o → %o', (kind, value, expected) => {
    expect(coerceLossless(kind, value)).toBe(expected);
  });

  it.each([
    ['int', '01'],
    ['int', ' 1'],
    ['int', '1 '],
    ['int', '1e3'],
    ['int', '1.0'],
    ['int', '90071992547409930e-1'],
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

  it.each(['9223372036854775808', '-9223372036854775809', '18446744073709551621'])(
    'int column: %j is beyond a BIGINT: OUT_OF_RANGE (the record is rejected, never rounded)',
    (value) => {
      expect(coerceLossless('int', value)).toBe(OUT_OF_RANGE);
    },
  );
});

describe('normalizeRecord with values sent as strings', () => {
  const meta = { runId: 'r', syncedAt: '2026-11-24T00:00:00.000Z', account: 'acme' };

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

  it('an integer string beyond 2^53 lands typed and exact; one beyond a BIGINT rejects the record, naming it', () => {
    const big = normalizeRecord('conversations', { id: 'c3', ticket_id: '9007199254740993' }, meta);
    expect(big.ok && big.row.ticket_id).toBe(9007199254740993n);
    expect(big.ok && big.coercedValues).toBe(1);

    const beyond = normalizeRecord('conversations', { id: 'c4', ticket_id: '18446744073709551621' }, meta);
    expect(beyond).toEqual({
      ok: false,
      reason: 'ticket_id: "18446744073709551621" is beyond what a signed 64-bit integer (BIGINT) holds',
    });
  });
});
