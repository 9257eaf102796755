import { describe, expect, it } from 'vitest';
import { formatQueryResult } from '../../../src/load/format-query-result.js';
import { exactNumber, type QueryResult } from '../../../src/warehouse/query-result.js';

const RESULT: QueryResult = {
  columns: [
    { name: 'name', numeric: false },
    { name: 'n', numeric: true },
    { name: 'tags', numeric: false },
  ],
  rows: [
    ['Support, "EU"', 12, ['a', 'b']],
    ['line\nbreak', 3, null],
  ],
};

describe('formatQueryResult', () => {
  it('table: names left, numbers right, NULL said, a line break kept on one line, the count last', () => {
    expect(formatQueryResult(RESULT, 'table')).toBe(
      [
        'name            n  tags',
        '-------------  --  ---------',
        'Support, "EU"  12  ["a","b"]',
        'line break      3  NULL',
        '(2 rows)',
        '',
      ].join('\n'),
    );
  });

  it('table: a result of a million rows is aligned like a small one', () => {
    const rows = Array.from({ length: 1_000_000 }, (_, i) => [i]);
    const text = formatQueryResult({ columns: [{ name: 'n', numeric: true }], rows }, 'table');
    expect(text.startsWith('     n\n------\n     0\n')).toBe(true);
    expect(text.endsWith('999999\n(1000000 rows)\n')).toBe(true);
  });

  it('table: no row, and a statement with no columns', () => {
    expect(formatQueryResult({ columns: [{ name: 'x', numeric: true }], rows: [] }, 'table')).toBe('x\n-\n(0 rows)\n');
    expect(formatQueryResult({ columns: [], rows: [] }, 'table')).toBe('(0 rows)\n');
  });

  it('csv: RFC 4180 quoting, NULL empty, CRLF', () => {
    expect(formatQueryResult(RESULT, 'csv')).toBe(
      'name,n,tags\r\n"Support, ""EU""",12,"[""a"",""b""]"\r\n"line\nbreak",3,\r\n',
    );
  });

  it('json: one object per row keyed by column, values as they are', () => {
    expect(JSON.parse(formatQueryResult(RESULT, 'json'))).toEqual([
      { name: 'Support, "EU"', n: 12, tags: ['a', 'b'] },
      { name: 'line\nbreak', n: 3, tags: null },
    ]);
  });

  it('a whole number becomes a number only when a double holds it exactly', () => {
    expect(exactNumber('42')).toBe(42);
    expect(exactNumber('-9007199254740991')).toBe(-9007199254740991);
    expect(exactNumber('9007199254740993')).toBe('9007199254740993');
    expect(exactNumber('1.50')).toBe('1.50');
  });
});
