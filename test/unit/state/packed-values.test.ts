import { describe, expect, it } from 'vitest';
import { isPackedHashMaps, packHashMaps, unpackHashMaps } from '../../../src/packed-hash-maps.js';
import { packBase64url, packId, unpackBase64url, unpackId } from '../../../src/packed-strings.js';

const UUID = '47c46a76-bade-4c8e-b079-f9ab97a43707';

describe('packed ids and fingerprints', () => {
  it('packs a lower-case UUID to 16 bytes and anything else not at all, always round-tripping', () => {
    expect(packId(UUID)).toEqual(Buffer.from('47c46a76bade4c8eb079f9ab97a43707', 'hex'));
    for (const id of [UUID, UUID.toUpperCase(), UUID.replaceAll('-', ''), '42', '', 'c-1', `${UUID} `, 'é']) {
      expect(unpackId(packId(id)), id).toBe(id);
    }
    expect(packId(UUID.toUpperCase())).toBe(UUID.toUpperCase());
  });

  it('packs base64url whose length is a multiple of four to its bytes, and keeps any other string', () => {
    expect(packBase64url('-8a7X27CAgWlaJch')).toHaveLength(12);
    expect(packBase64url('bjUlFRqhtLya')).toHaveLength(9);
    for (const s of ['-8a7X27CAgWlaJch', 'bjUlFRqhtLya', 'abc', 'ab+/', 'abc=', '', 'ab cd', 'ÿÿÿÿ']) {
      expect(unpackBase64url(packBase64url(s)), s).toBe(s);
    }
    expect(packBase64url('abc=')).toBe('abc=');
  });
});

describe('packed hash maps', () => {
  const thread = {
    e: {
      [UUID]: 'bjUlFRqhtLya',
      evt_0f5744585480a6acddb5478e02b54999: 'MFOUoGSB9Hm-',
      'evt_0f5744585480a6acddb5478e02b54999-2': '4DXIxVMmiwal',
    },
    m: { [UUID]: 'awyZmdZx9eqA' },
    a: { '9126587e-5382-40c5-9ba3-f9abbcfe8f6e': '_4qApDdDmxXX' },
  };

  it('round-trips a thread and spends about 26 bytes a row, 11 on a key met before', () => {
    const packed = packHashMaps(thread);
    expect(isPackedHashMaps(packed)).toBe(true);
    expect(unpackHashMaps(packed)).toEqual(thread);
    // 3 + 3 section headers + entries: UUID 26, event 26, event -2 27, back-reference 11, attachment 26.
    expect(packed.length).toBe(3 + 3 * 3 + 26 + 26 + 27 + 11 + 26);
    expect(packed.length).toBeLessThan(JSON.stringify(thread).length / 2);
  });

  it('keeps as text every key and hash with no exact packed form', () => {
    const odd = {
      e: {
        [UUID.toUpperCase()]: 'short',
        evt_0F5744585480A6ACDDB5478E02B54999: 'bjUlFRqhtLya',
        'evt_0f5744585480a6acddb5478e02b54999-0': 'bjUlFRqhtLya',
        'evt_0f5744585480a6acddb5478e02b54999-02': '',
        ключ: 'значение',
        '123': 'bjUlFRqhtLyaXXXX',
      },
      m: {},
      a: {},
      extra: { x: 'y' },
    } as Record<string, Record<string, string>>;
    // JSON.parse gives `__proto__` as an own key, as a state written as JSON may hold it.
    const fromJson = JSON.parse('{"e":{"__proto__":"bjUlFRqhtLya","k":"v"},"m":{"__proto__":"x"},"a":{}}');
    for (const maps of [odd, fromJson]) {
      const back = unpackHashMaps(packHashMaps(maps));
      expect(back).toEqual(maps);
      expect(Object.keys(back.e as object)).toEqual(Object.keys(maps.e as object));
    }
    expect(Object.hasOwn(unpackHashMaps(packHashMaps(fromJson)).e as object, '__proto__')).toBe(true);
  });

  it('packs empty maps and refuses bytes it did not write', () => {
    const empty = { e: {}, m: {}, a: {} };
    expect(unpackHashMaps(packHashMaps(empty))).toEqual(empty);
    const packed = packHashMaps(thread);
    expect(() => unpackHashMaps(packed.subarray(0, packed.length - 1))).toThrow(RangeError);
    expect(() => unpackHashMaps(Buffer.concat([packed, Buffer.from([0])]))).toThrow(RangeError);
    expect(isPackedHashMaps(Buffer.from('{"e":{}}'))).toBe(false);
  });
});
