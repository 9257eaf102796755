import { describe, expect, it } from 'vitest';
import { parseJsonExact } from '../../../src/exact-json/parse-json-exact.js';
import { stringifyJsonExact } from '../../../src/exact-json/stringify-json-exact.js';

describe('stringifyJsonExact', () => {
  it('writes a bigint as its digits, at any depth', () => {
    expect(
      stringifyJsonExact({ ticket_id: 9007199254740993n, list: [-9223372036854775809n, { n: 18446744073709551621n }] }),
    ).toBe('{"ticket_id":9007199254740993,"list":[-9223372036854775809,{"n":18446744073709551621}]}');
    expect(() => JSON.stringify({ n: 1n })).toThrow(TypeError);
  });

  it('writes what JSON.stringify writes for everything else, in a value that holds a bigint', () => {
    const others = {
      s: 'quote " nl \n lone \ud800 pair 😀',
      n: [0, -0, 1.5, 1e21, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY],
      b: [true, false, null],
      skipped: undefined,
      f: () => 1,
      inArray: [undefined, () => 1, Symbol('s')],
      date: new Date(0),
      wrapped: [Object(5), Object('text'), Object(true)],
      own: { toJSON: (key: string) => `toJSON of ${key}` },
      nested: { empty: {}, list: [] },
    };
    const withBig = stringifyJsonExact({ ...others, big: 9007199254740993n });
    expect(withBig).toBe(`${JSON.stringify(others).slice(0, -1)},"big":9007199254740993}`);
  });

  it('indents as JSON.stringify does', () => {
    const value = { a: [1, { b: 'c' }], e: {}, f: [] };
    expect(stringifyJsonExact({ ...value, g: 1n }, 2)).toBe(`${JSON.stringify({ ...value, g: 1 }, null, 2)}`);
    expect(stringifyJsonExact(value, 2)).toBe(JSON.stringify(value, null, 2));
  });

  it('gives back the digits parseJsonExact read', () => {
    const text =
      '{"a":9007199254740993,"b":[-9223372036854775808,123456789012345678901234567890],"c":"9007199254740993"}';
    expect(stringifyJsonExact(parseJsonExact(text))).toBe(text);
  });

  it('refuses a cycle like JSON.stringify, also in a value with a bigint', () => {
    const cycle: Record<string, unknown> = { n: 1n };
    cycle.self = cycle;
    expect(() => stringifyJsonExact(cycle)).toThrow(TypeError);
  });
});
