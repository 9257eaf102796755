import { describe, expect, it } from 'vitest';
import { canonicalHash, canonicalJson } from '../../../src/canonical-json.js';
import { fingerprint } from '../../../src/streams/fingerprint.js';

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('writes what JSON.stringify would for undefined members, non-finite numbers and strings', () => {
    expect(canonicalJson({ a: undefined, b: Number.NaN, c: 'x"y', d: [undefined] })).toBe(
      '{"b":null,"c":"x\\"y","d":[null]}',
    );
    expect(JSON.parse(canonicalJson({ c: 'é\n', n: -1.5e-7, t: true }))).toEqual({ c: 'é\n', n: -1.5e-7, t: true });
  });

  it('writes an integer beyond 2^53 (a bigint) as its digits, like a number, not as a string', () => {
    expect(canonicalJson({ ticket_id: 9007199254740993n, ids: [-18446744073709551621n] })).toBe(
      '{"ids":[-18446744073709551621],"ticket_id":9007199254740993}',
    );
    // Two tickets one double apart are two contents.
    expect(fingerprint({ ticket_id: 9007199254740993n })).not.toBe(fingerprint({ ticket_id: 9007199254740992 }));
    expect(canonicalJson({ n: 9007199254740993n })).not.toBe(canonicalJson({ n: '9007199254740993' }));
  });
});

describe('fingerprint', () => {
  it('is equal for equal content in any key order, different for any changed value', () => {
    const a = { id: 'x', status: 'Active', agents: ['u1', 'u2'], nested: { k: 1 } };
    const b = { nested: { k: 1 }, agents: ['u1', 'u2'], status: 'Active', id: 'x' };
    expect(fingerprint(a)).toBe(fingerprint(b));
    expect(fingerprint({ ...a, status: 'Closed' })).not.toBe(fingerprint(a));
    expect(fingerprint({ ...a, agents: ['u2', 'u1'] })).not.toBe(fingerprint(a));
    expect(fingerprint({ ...a, nested: { k: '1' } })).not.toBe(fingerprint(a));
  });

  it('has the asked length, url-safe; the hex form is sha256 of the canonical JSON', () => {
    expect(fingerprint({ a: 1 })).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(fingerprint({ a: 1 }, 10)).toHaveLength(10);
    // sha256 of the text '[1]': stable across runs, processes and versions.
    expect(canonicalHash([1]).slice(0, 8)).toBe('080a9ed4');
  });
});
