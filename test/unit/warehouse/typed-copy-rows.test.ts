import { describe, expect, it } from 'vitest';
import { batchKeys } from '../../../src/warehouse/postgres/batch-keys.js';
import { typedCopy } from '../../../src/warehouse/postgres/typed-copy-rows.js';
import { random } from '../../support/seeded-random.js';

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
    // Beyond a BIGINT: the server's error, as the landing path records it.
    expect(copy.encodeLine('{"id":"a","n":9223372036854775808}')).toBeUndefined();
    // A number with a fraction and a long run of digits: jsonb keeps the text's digits, a double would not.
    expect(copy.encodeLine('{"id":"a","doc":{"f":0.1000000000000000055511151231257827}}')).toBeUndefined();
    expect(copy.encodeLine('{"id":"a","doc":{"f":1234567890123456.5}}')).toBeUndefined();
    expect(copy.encodeLine('{"id":"a","doc":[1.2345678901234567e300]}')).toBeUndefined();
    expect(copy.encodeLine('{"id":"nul \\u0000"}')).toBeUndefined();
    expect(copy.encodeLine('{"id":"lone \\ud800"}')).toBeUndefined();
    expect(copy.encodeLine('{"id":"pair \\ud83d\\ude00"}')).toBeUndefined();
    expect(copy.encodeLine('not json')).toBeUndefined();
    expect(copy.encodeLine('[1,2]')).toBeUndefined();
  });

  it('types integers beyond 2^53 as the digits the line holds, in a bigint column and inside jsonb', () => {
    const fields = (text: string) => copy.encodeLine(text)?.split('\t');
    // 2^53 + 1 has no double: JSON.parse would make it 9007199254740992.
    expect(fields('{"id":"a","n":9007199254740993}')?.[1]).toBe('9007199254740993');
    expect(fields('{"id":"a","n":-9223372036854775808}')?.[1]).toBe('-9223372036854775808');
    expect(fields('{"id":"a","n":9223372036854775807}')?.[1]).toBe('9223372036854775807');
    expect(fields('{"id":"a","doc":{"big":18446744073709551621,"list":[-9007199254740993,0.5]}}')?.[6]).toBe(
      '{"big":18446744073709551621,"list":[-9007199254740993,0.5]}',
    );
    // A long run of digits in a string is text like any other.
    expect(fields('{"id":"12345678901234567890","doc":{"s":"12345678901234567890"}}')).toEqual([
      '12345678901234567890',
      '\\N',
      '\\N',
      '\\N',
      '\\N',
      '\\N',
      '{"s":"12345678901234567890"}',
    ]);
  });

  it('is not offered for a table with a type it has no encoder for', () => {
    expect(typedCopy('t_batch', [...columns, { name: 'm', type: 'numeric' }])).toBeUndefined();
    expect(typedCopy('t_batch', [{ name: 'j', type: 'json' }])).toBeUndefined();
  });

  it('gives back every string, whether its line holds an escape or not', () => {
    // COPY's text format and an array literal, read back as the server reads them.
    const readField = (field: string) =>
      field.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c);
    const readArray = (literal: string) =>
      [...literal.slice(1, -1).matchAll(/"((?:[^"\\]|\\.)*)"|NULL/g)].map((m) =>
        m[1] === undefined ? null : m[1].replace(/\\(.)/g, '$1'),
      );
    const ordinary = ['a', 'é', '\u2028', '😀', '{', '}', ',', ' ', 'N'];
    const escaped = ['"', '\\', '\n', '\t', '\r', '\u0001'];
    const next = random(7);
    const from = (chars: string[]) => chars[Math.floor(next() * chars.length)]!;
    const pick = () => from(next() < 0.9 ? ordinary : escaped);
    const word = () => Array.from({ length: Math.floor(next() * 5) }, pick).join('');
    const lines = { plain: 0, escaped: 0 };
    for (let i = 0; i < 2000; i++) {
      const row = { id: word() + pick(), tags: [word(), null, word()], doc: { [word()]: word() } };
      const json = JSON.stringify(row);
      lines[json.includes('\\') ? 'escaped' : 'plain'] += 1;
      const fields = copy.encodeLine(json)!.split('\t');
      expect(fields).toHaveLength(columns.length);
      expect(readField(fields[0]!), json).toBe(row.id);
      expect(readArray(readField(fields[5]!)), json).toEqual(row.tags);
      expect(JSON.parse(readField(fields[6]!)), json).toEqual(row.doc);
    }
    // Both kinds of line were tried.
    expect(lines.plain).toBeGreaterThan(100);
    expect(lines.escaped).toBeGreaterThan(100);
  });
});

describe('the keys typedCopy shows BatchKeys', () => {
  const keyed = (keyColumns: string[]) => typedCopy('t_batch', columns, keyColumns)!;
  const seeAll = (copy: ReturnType<typeof keyed>, rows: Array<Record<string, unknown>>) => {
    const keys = batchKeys();
    for (const row of rows) copy.encodeLine(JSON.stringify(row), keys);
    return keys;
  };

  it('finds each key once, or one seen twice', () => {
    const byId = keyed(['id']);
    expect(seeAll(byId, [{ id: 'a' }, { id: 'b' }, { id: 'c' }]).unique).toBe(true);
    expect(seeAll(byId, [{ id: 'a' }, { id: 'b' }, { id: 'a', n: 2 }]).unique).toBe(false);
    // A bigint key, as its text.
    const byN = keyed(['n']);
    expect(seeAll(byN, [{ n: 1 }, { n: 2 }]).unique).toBe(true);
    expect(seeAll(byN, [{ n: 1 }, { n: 1 }]).unique).toBe(false);
    // Beyond 2^53, by its digits: two keys one double apart are two keys.
    const keys = batchKeys();
    for (const text of ['{"n":9007199254740992}', '{"n":9007199254740993}']) byN.encodeLine(text, keys);
    expect(keys.unique).toBe(true);
  });

  it('tells composite keys apart only by all their columns', () => {
    const pair = keyed(['id', 'n']);
    const rows = (...pairs: Array<[string, number]>) => pairs.map(([id, n]) => ({ id, n }));
    expect(seeAll(pair, rows(['a', 1], ['a', 2], ['b', 1])).unique).toBe(true);
    expect(seeAll(pair, rows(['a', 1], ['b', 2], ['a', 1])).unique).toBe(false);
    // Joined naively, ("a,b", "c") and ("a", "b,c") would be one key.
    const texts = typedCopy(
      't_batch',
      [
        { name: 'id', type: 'text' },
        { name: 'b', type: 'text' },
      ],
      ['id', 'b'],
    )!;
    expect(
      seeAll(texts, [
        { id: 'a,b', b: 'c' },
        { id: 'a', b: 'b,c' },
      ]).unique,
    ).toBe(true);
  });

  it('counts a row without a key, a line left to the landing path, or a table without a key as unknown', () => {
    const byId = keyed(['id']);
    expect(seeAll(byId, [{ id: 'a' }, { n: 1 }]).unique).toBe(false);
    expect(seeAll(keyed([]), [{ id: 'a' }]).unique).toBe(false);
    // Two texts of one instant are one key to the server: a timestamp in the key is not seen.
    const byInstant = keyed(['id', 'at']);
    expect(seeAll(byInstant, [{ id: 'a', at: '2026-01-01T00:00:00Z' }]).unique).toBe(false);
    // A line the typed path leaves out shows no key: the caller lets the keys go (postgres-load-tables.ts).
    const keys = batchKeys();
    expect(byId.encodeLine(JSON.stringify({ id: 'a', n: '5' }), keys)).toBeUndefined();
    expect(keys.unique).toBe(true);
    keys.letGo();
    expect(keys.unique).toBe(false);
    keys.see('b');
    expect(keys.unique, 'once let go, never unique again').toBe(false);
  });
});

describe('BatchKeys', () => {
  it('holds many keys (its table grows) and still finds the one seen twice', () => {
    const keys = batchKeys();
    for (let i = 0; i < 200_000; i++) keys.see(`msg_${i}`);
    expect(keys.unique).toBe(true);
    keys.see('msg_123456');
    expect(keys.unique).toBe(false);
    const again = batchKeys();
    for (let i = 0; i < 5_000; i++) again.see(String(i));
    again.see('');
    expect(again.unique, 'the empty key is a key').toBe(true);
    again.see('');
    expect(again.unique).toBe(false);
  });
});
