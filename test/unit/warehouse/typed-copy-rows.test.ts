import { describe, expect, it } from 'vitest';
import { typedCopy } from '../../../src/warehouse/postgres/typed-copy-rows.js';

const columns = [
  { name: 'id', type: 'text' },
  { name: 'n', type: 'bigint' },
  { name: 'x', type: 'double precision' },
  { name: 'ok', type: 'boolean' },
  { name: 'at', type: 'timestamp with time zone' },
  { name: 'tags', type: 'text[]' },
  { name: 'doc', type: 'jsonb' },
];
const copy = typedCopy('t_batch', columns)!;
const line = (row: Record<string, unknown>) => copy.encodeLine(JSON.stringify(row));

describe('typedCopy', () => {
  it('names its columns in the order of the fields', () => {
    expect(copy.sql).toBe('COPY t_batch ("id", "n", "x", "ok", "at", "tags", "doc") FROM STDIN');
  });

  it("writes COPY's text format: escapes, NULL for an absent or null value, arrays quoted", () => {
    const row = line({
      id: 'a\tb\nc\rd\\e',
      n: 5,
      x: 0.1,
      ok: false,
      at: '2026-01-01T00:00:00.000Z',
      tags: ['q"u', 'b\\s', null],
      doc: { k: 'v\t' },
    });
    expect(row).toBe(
      [
        'a\\tb\\nc\\rd\\\\e',
        '5',
        '0.1',
        'f',
        '2026-01-01T00:00:00.000Z',
        '{"q\\\\"u","b\\\\\\\\s",NULL}',
        '{"k":"v\\\\t"}',
      ].join('\t'),
    );
    expect(line({ id: 'only' })).toBe(['only', '\\N', '\\N', '\\N', '\\N', '\\N', '\\N'].join('\t'));
    expect(line({ id: '\\N', tags: [] })).toBe(['\\\\N', '\\N', '\\N', '\\N', '\\N', '{}', '\\N'].join('\t'));
  });

  it('leaves to the landing path what only the server may judge or what Node would change', () => {
    for (const odd of [
      { n: '5' },
      { n: 2 ** 53 + 2 },
      { n: 1.5 },
      { x: 'NaN' },
      { ok: 'true' },
      { at: 5 },
      { tags: [1] },
      { tags: 'a' },
      { id: 17 },
    ]) {
      expect(line({ id: 'a', ...odd }), JSON.stringify(odd)).toBeUndefined();
    }
    expect(copy.encodeLine('{"id":"a","doc":{"big":12345678901234567890}}')).toBeUndefined();
    expect(copy.encodeLine('{"id":"nul \\u0000"}')).toBeUndefined();
    expect(copy.encodeLine('{"id":"lone \\ud800"}')).toBeUndefined();
    expect(copy.encodeLine('{"id":"pair \\ud83d\\ude00"}')).toBeUndefined();
    expect(copy.encodeLine('not json')).toBeUndefined();
    expect(copy.encodeLine('[1,2]')).toBeUndefined();
  });

  it('is not offered for a table with a type it has no encoder for', () => {
    expect(typedCopy('t_batch', [...columns, { name: 'm', type: 'numeric' }])).toBeUndefined();
    expect(typedCopy('t_batch', [{ name: 'j', type: 'json' }])).toBeUndefined();
  });
});
