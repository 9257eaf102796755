import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { hasLongDigitRun } from '../../../src/exact-json/has-long-digit-run.js';
import { parseJsonExact, parseJsonLossless } from '../../../src/exact-json/parse-json-exact.js';
import { random } from '../../support/seeded-random.js';

/** Any JSON value, from a seeded generator: nesting, escapes, numbers of every form, long digit runs in strings. */
function randomValue(next: () => number, depth = 0): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const kind = depth > 3 ? Math.floor(next() * 4) : Math.floor(next() * 6);
  switch (kind) {
    case 0:
      return pick([
        0,
        -0,
        7,
        -12,
        0.5,
        -1.25e-7,
        1e21,
        123456789012345,
        -999999999999999,
        2 ** 53 - 1,
        0.30000000000000004,
      ]);
    case 1:
      return pick([
        '',
        'plain',
        'é ü',
        '😀',
        'quote " back \\ slash',
        'nl\n tab\t',
        '\u0001\u001f',
        '\u2028',
        '\ud800',
      ]);
    case 2:
      return pick([true, false, null, 'order 12345678901234567890', 'id-9007199254740993']);
    case 3:
      return pick(['__proto__', 'constructor', '1234567890123456']);
    case 4:
      return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 4); i > 0; i--) out[String(randomValue(next, 9))] = randomValue(next, depth + 1);
      return out;
    }
  }
}

describe('parseJsonExact', () => {
  it('reads integer literals beyond 2^53 as bigints of their digits, and safe ones as numbers', () => {
    expect(parseJsonExact('{"ticket_id":9007199254740993}')).toEqual({ ticket_id: 9007199254740993n });
    expect(parseJsonExact('[9007199254740991,9007199254740992,-9007199254740993,18446744073709551621]')).toEqual([
      9007199254740991,
      9007199254740992n,
      -9007199254740993n,
      18446744073709551621n,
    ]);
    // A safe integer written with 16 digits or more (leading digits of a small value) stays a number.
    expect(parseJsonExact('[1000000000000000,-1000000000000000]')).toEqual([1000000000000000, -1000000000000000]);
    // JSON.parse would round: that is what this parser is for.
    expect(JSON.parse('9007199254740993')).toBe(9007199254740992);
  });

  it('keeps a number with a fraction or an exponent a number (a double), however many digits it has', () => {
    expect(parseJsonExact('[12345678901234567890.5,1.2345678901234567e3,90071992547409930e-1,-0.0]')).toEqual(
      JSON.parse('[12345678901234567890.5,1.2345678901234567e3,90071992547409930e-1,-0.0]'),
    );
    expect(
      Object.is(
        parseJsonExact('[-0,"1234567890123456"]') && (parseJsonExact('[-0,"1234567890123456"]') as number[])[0],
        -0,
      ),
    ).toBe(true);
  });

  it('leaves long runs of digits inside strings as they are', () => {
    const text = '{"phone":"00491234567890123456","note":"order 9007199254740993, ref \\"12345678901234567890\\""}';
    expect(parseJsonExact(text)).toEqual(JSON.parse(text));
  });

  it('gives what JSON.parse gives for every text without an unsafe integer, on either path', () => {
    const next = random(11);
    for (let i = 0; i < 3000; i++) {
      const text = JSON.stringify(randomValue(next));
      const spaced = next() < 0.3 ? text.replace(/,/g, ' ,\n\t').replace(/:/g, ' : ') : text;
      // node's deep equality: vitest's reads an own `constructor` member as the value's class.
      expect(isDeepStrictEqual(parseJsonLossless(spaced), JSON.parse(spaced)), spaced).toBe(true);
      expect(isDeepStrictEqual(parseJsonExact(spaced), JSON.parse(spaced)), spaced).toBe(true);
    }
  });

  it('takes the fast path only without a run of 16 digits, and both paths agree there', () => {
    const text = '{"a":[1,2.5,"x"],"b":{"c":null,"d":true},"e":123456789012345}';
    expect(hasLongDigitRun(text)).toBe(false);
    expect(parseJsonLossless(text)).toStrictEqual(parseJsonExact(text));
    expect(hasLongDigitRun('{"e":1234567890123456}')).toBe(true);
  });

  it('makes `__proto__` an own member and a repeated key keep its first place with the last value, as JSON.parse does', () => {
    const text = '{"__proto__":{"polluted":1},"a":1,"b":"1234567890123456","a":2}';
    const value = parseJsonExact(text) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'a', 'b']);
    expect(value).toStrictEqual(JSON.parse(text));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses exactly what JSON.parse refuses, with a SyntaxError', () => {
    const bad = [
      '',
      ' ',
      '{',
      '[1,]',
      '{"a":1,}',
      '{"a" 1}',
      '{a:1}',
      "['a']",
      '01',
      '1.',
      '.5',
      '-',
      '+1',
      '1e',
      '1e+',
      'NaN',
      'tru',
      'nul',
      '"unterminated',
      '"bad \\x escape"',
      '"bad \\u12 escape"',
      '"raw \u0001 control"',
      '[1] [2]',
      '\ufeff[1]',
      '{"cut":"9007199254740993',
    ];
    for (const text of bad) {
      // The same text with a long run of digits in front takes the lossless path.
      for (const variant of [text, `[1234567890123456,${text}]`]) {
        expect(() => JSON.parse(variant), variant).toThrow(SyntaxError);
        expect(() => parseJsonExact(variant), variant).toThrow(SyntaxError);
      }
    }
  });

  it('parses nesting deeper than a recursive parser could', () => {
    const depth = 100_000;
    const text = `${'['.repeat(depth)}9007199254740993${']'.repeat(depth)}`;
    let value = parseJsonExact(text);
    for (let i = 0; i < depth; i++) value = (value as unknown[])[0];
    expect(value).toBe(9007199254740993n);
  });
});

describe('hasLongDigitRun', () => {
  it('finds a run of 16 digits wherever it starts, and nothing shorter', () => {
    for (let at = 0; at < 40; at++) {
      for (const length of [15, 16, 17]) {
        const text = `${'x'.repeat(at)}${'7'.repeat(length)}${'y'.repeat(5)}`;
        expect(hasLongDigitRun(text), `${length} digits at ${at}`).toBe(length >= 16);
      }
    }
    expect(hasLongDigitRun('2026-07-30T10:00:00.000Z 123456789012345 900719925474099')).toBe(false);
    expect(hasLongDigitRun('')).toBe(false);
  });
});
