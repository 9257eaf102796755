import { describe, expect, it } from 'vitest';
import {
  coerceValue,
  INVALID,
  jsonTypeOf,
  OUT_OF_RANGE,
  toDate,
  toUtcTimestamp,
} from '../../../src/output/normalize/coerce-value.js';

describe('toUtcTimestamp', () => {
  it.each([
    ['2026-03-01T10:00:00Z', '2026-03-01T10:00:00.000Z'],
    ['2026-03-01T10:00:00.5Z', '2026-03-01T10:00:00.500Z'],
    // Microseconds kept (every target warehouse stores them), finer digits cut, 4-5 digits padded.
    ['2026-03-01T10:00:00.123456Z', '2026-03-01T10:00:00.123456Z'],
    ['2026-03-01T10:00:00.1234567Z', '2026-03-01T10:00:00.123456Z'],
    ['2026-03-01T10:00:00.1234Z', '2026-03-01T10:00:00.123400Z'],
    ['2026-03-01T10:00:00.000001Z', '2026-03-01T10:00:00.000001Z'],
    ['2026-03-01T10:00:00.123456+02:00', '2026-03-01T08:00:00.123456Z'],
    ['2026-03-01T00:00:00.999999-0130', '2026-03-01T01:30:00.999999Z'],
    ['2026-03-01 10:00:00.5', '2026-03-01T10:00:00.500Z'],
    ['2026-03-01T10:00:00+02:00', '2026-03-01T08:00:00.000Z'],
    ['2026-03-01T10:00:00-0130', '2026-03-01T11:30:00.000Z'],
    ['2026-03-01T10:00:00+05', '2026-03-01T05:00:00.000Z'],
    ['2026-03-01 10:00:00', '2026-03-01T10:00:00.000Z'],
    ['2026-03-01T10:00', '2026-03-01T10:00:00.000Z'],
    ['2026-03-01', '2026-03-01T00:00:00.000Z'],
    ['2028-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
  ])('%s → %s', (input, expected) => {
    expect(toUtcTimestamp(input)).toBe(expected);
  });

  it.each(['yesterday', '2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-03-01T10:00:61Z', '1700000000', ''])(
    '%j is not a timestamp',
    (input) => {
      expect(toUtcTimestamp(input)).toBe(INVALID);
    },
  );
});

describe('toDate', () => {
  it.each([
    ['2026-03-01', '2026-03-01'],
    ['2026-03-01T23:30:00-05:00', '2026-03-01'],
  ])('%s → %s', (input, expected) => {
    expect(toDate(input)).toBe(expected);
  });
  it.each(['2026-02-29', '03/01/2026', '2026-3-1'])('%j is not a date', (input) => {
    expect(toDate(input)).toBe(INVALID);
  });
});

describe('coerceValue', () => {
  it.each([
    ['int', 3, 3],
    ['int', 3.5, INVALID],
    ['int', '3', INVALID],
    // A double that is not a safe integer came from a literal with a fraction or an exponent: not an integer as sent.
    ['int', 2 ** 60, INVALID],
    // An integer literal beyond 2^53 is read as a bigint (exact-json): kept when a BIGINT holds it.
    ['int', 9007199254740993n, 9007199254740993n],
    ['int', 9223372036854775807n, 9223372036854775807n],
    ['int', -9223372036854775808n, -9223372036854775808n],
    ['int', 9223372036854775808n, OUT_OF_RANGE],
    ['int', -9223372036854775809n, OUT_OF_RANGE],
    ['int', 18446744073709551621n, OUT_OF_RANGE],
    ['number', 1.5, 1.5],
    // A number column takes an integer a double equals exactly (2^60), and no other.
    ['number', 1152921504606846976n, 2 ** 60],
    ['number', 9007199254740993n, OUT_OF_RANGE],
    ['string', 9007199254740993n, INVALID],
    ['json', { n: 18446744073709551621n }, { n: 18446744073709551621n }],
    ['array', [9007199254740993n], [9007199254740993n]],
    ['number', Number.NaN, INVALID],
    ['bool', false, false],
    ['bool', 0, INVALID],
    ['string', 'x', 'x'],
    ['string', 5, INVALID],
    ['string_array', ['a', 'b'], ['a', 'b']],
    ['string_array', 'a', INVALID],
    ['array', [{ a: 1 }], [{ a: 1 }]],
    ['array', { a: 1 }, INVALID],
    ['object', { a: 1 }, { a: 1 }],
    ['object', [1], INVALID],
    ['json', 'anything', 'anything'],
  ] as const)('%s accepts %o → %o', (kind, value, expected) => {
    expect(coerceValue(kind, value)).toEqual(expected);
  });
});

describe('jsonTypeOf', () => {
  it('names a bigint (an integer beyond 2^53) a number, its JSON type', () => {
    expect([jsonTypeOf(9007199254740993n), jsonTypeOf(1), jsonTypeOf('1'), jsonTypeOf([]), jsonTypeOf(null)]).toEqual([
      'number',
      'number',
      'string',
      'array',
      'null',
    ]);
  });
});
