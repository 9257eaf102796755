import { describe, expect, it } from 'vitest';
import { safeText, serializeSafe } from '../../../src/output/normalize/safe-text.js';

describe('safeText', () => {
  it('replaces NUL and lone surrogates with U+FFFD and keeps paired surrogates', () => {
    expect(safeText('a\u0000b')).toBe('a\ufffdb');
    expect(safeText('x\ud83dy')).toBe('x\ufffdy');
    expect(safeText('x\ude00y')).toBe('x\ufffdy');
    expect(safeText('end\ud83d')).toBe('end\ufffd');
    expect(safeText('\ude00\ud83d')).toBe('\ufffd\ufffd');
    expect(safeText('smile \ud83d\ude00 ok')).toBe('smile \ud83d\ude00 ok');
    expect(safeText('\u0000\u0000')).toBe('\ufffd\ufffd');
  });

  it('returns the very same string when there is nothing to replace', () => {
    const text = 'plain ünïcödé \ud83d\ude00 and a literal \\u0000';
    expect(safeText(text)).toBe(text);
  });
});

describe('serializeSafe', () => {
  it('writes the JSON unchanged and counts nothing for clean rows', () => {
    const row = { id: 'a', body: 'text with \\u0000 written as letters', n: 1, list: ['x'], nested: { k: null } };
    expect(serializeSafe(row)).toEqual({ line: JSON.stringify(row), sanitized: 0 });
  });

  it('replaces in values, nested objects, arrays and keys, counting each string changed', () => {
    const row = {
      id: 'a',
      subject: 'bad\u0000subject',
      event: { text_body: 'x\ud800', html_body: 'fine', cc: ['ok', 'n\u0000ul'] },
      _extra: { 'key\u0000': 1, __proto__field: 'y' },
    };
    const { line, sanitized } = serializeSafe(row);
    expect(sanitized).toBe(4);
    expect(line).not.toMatch(/\\u0000|\\ud[89a-f]/);
    expect(JSON.parse(line)).toEqual({
      id: 'a',
      subject: 'bad\ufffdsubject',
      event: { text_body: 'x\ufffd', html_body: 'fine', cc: ['ok', 'n\ufffdul'] },
      _extra: { 'key\ufffd': 1, __proto__field: 'y' },
    });
    // The input row is not changed.
    expect(row.subject).toBe('bad\u0000subject');
  });

  it('keeps a __proto__ key of the source as an ordinary key', () => {
    const row = JSON.parse('{"_extra": {"__proto__": "p\\u0000"}}');
    expect(JSON.parse(serializeSafe(row).line)).toEqual(JSON.parse('{"_extra": {"__proto__": "p\\ufffd"}}'));
  });

  it('writes an integer beyond 2^53 (a bigint) as its digits, also in a row whose strings it cleans', () => {
    const row = { id: 'a', ticket_id: 9007199254740993n, _extra: { ids: [18446744073709551621n], note: 'x\u0000' } };
    const { line, sanitized } = serializeSafe(row);
    expect(sanitized).toBe(1);
    expect(line).toBe(
      '{"id":"a","ticket_id":9007199254740993,"_extra":{"ids":[18446744073709551621],"note":"x\ufffd"}}',
    );
    expect(serializeSafe({ n: -9223372036854775808n }).line).toBe('{"n":-9223372036854775808}');
  });
});
