import { isPackableUuid, uuidOf } from './packed-strings.js';

/**
 * A compact binary form of named maps of key → hash, the shape of what the
 * state remembers about one conversation's thread (row key → content hash, per
 * table; streams/conversations/thread-state.ts). JSON spends about 55 bytes on
 * an entry (a 36-character id, a 12-character hash, quotes); this spends 26, and
 * 11 on a key met before in the same value (a message's event and message rows
 * share its id).
 *
 * Layout: a format byte, the byte length of a packed hash (every hash that is
 * base64url of that length packs to it), a section count; per section its name
 * (length byte + UTF-8), an entry count (varint) and the entries. An entry is a
 * tag byte (key kind in bits 0–2, bit 3 set when the hash is kept as text), the
 * key, the hash. Key kinds: a lower-case UUID (16 bytes); a system event key
 * `evt_` + 32 hex digits (16 bytes), with `-<n>` (16 bytes + varint n); a key
 * met earlier in this value (varint index, in order of first appearance); any
 * other text (varint length + UTF-8). Every form round-trips exactly: a key or
 * hash that would not is kept as text.
 */

const FORMAT = 1;
const KEY_UUID = 0;
const KEY_EVENT = 1;
const KEY_EVENT_NTH = 2;
const KEY_SEEN = 3;
const KEY_TEXT = 4;
const HASH_AS_TEXT = 0x08;
const EVENT_KEY = /^evt_([0-9a-f]{32})(?:-([1-9][0-9]{0,8}))?$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Value of a hex digit (lower case) and, separately, of a base64url character, by char code. */
const HEX_DIGITS = new Uint8Array(128);
const B64_DIGITS = new Uint8Array(128);
for (let i = 0; i < 16; i++) HEX_DIGITS['0123456789abcdef'.charCodeAt(i)] = i;
for (let i = 0; i < 64; i++)
  B64_DIGITS['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.charCodeAt(i)] = i;
const UUID_PARTS = [
  [0, 8],
  [9, 13],
  [14, 18],
  [19, 23],
  [24, 36],
] as const;

export type HashMaps = Record<string, Record<string, string>>;

/** True when `bytes` start like a value of packHashMaps (JSON text starts with `{`). */
export function isPackedHashMaps(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === FORMAT;
}

class Writer {
  private buf: Buffer;
  length = 0;

  constructor(estimate: number) {
    this.buf = Buffer.allocUnsafe(estimate);
  }

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  byte(value: number): void {
    this.room(1);
    this.buf[this.length++] = value;
  }

  varint(value: number): void {
    let v = value;
    while (v >= 0x80) {
      this.byte((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    this.byte(v);
  }

  bytes(value: Uint8Array): void {
    this.room(value.length);
    this.buf.set(value, this.length);
    this.length += value.length;
  }

  text(value: string): void {
    const bytes = Buffer.from(value, 'utf8');
    this.varint(bytes.length);
    this.bytes(bytes);
  }

  /**
   * Hex digits of `value` from `from` to `to` (checked by the caller) as bytes. Decoded in
   * JavaScript: a Buffer.write per key and hash costs more than the rest of the packing.
   */
  hex(value: string, from: number, to: number): void {
    this.room((to - from) / 2);
    for (let i = from; i < to; i += 2) {
      this.buf[this.length++] =
        ((HEX_DIGITS[value.charCodeAt(i)] as number) << 4) | (HEX_DIGITS[value.charCodeAt(i + 1)] as number);
    }
  }

  /** A base64url string whose length is a multiple of 4 (checked by the caller) as bytes. */
  base64url(value: string): void {
    this.room((value.length / 4) * 3);
    for (let i = 0; i < value.length; i += 4) {
      const n =
        ((B64_DIGITS[value.charCodeAt(i)] as number) << 18) |
        ((B64_DIGITS[value.charCodeAt(i + 1)] as number) << 12) |
        ((B64_DIGITS[value.charCodeAt(i + 2)] as number) << 6) |
        (B64_DIGITS[value.charCodeAt(i + 3)] as number);
      this.buf[this.length++] = n >> 16;
      this.buf[this.length++] = (n >> 8) & 0xff;
      this.buf[this.length++] = n & 0xff;
    }
  }

  done(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.length));
  }
}

/** Bytes of a base64url string that packs exactly (length a multiple of 4), else -1. */
function packedLength(hash: string): number {
  return hash.length > 0 && hash.length % 4 === 0 && BASE64URL.test(hash) ? (hash.length / 4) * 3 : -1;
}

/** The length most hashes pack to, so that it is written once, not per entry. */
function commonHashBytes(maps: HashMaps): number {
  for (const map of Object.values(maps)) {
    for (const hash of Object.values(map)) {
      const n = packedLength(hash);
      if (n > 0 && n < 256) return n;
    }
  }
  return 0;
}

function writeKey(w: Writer, key: string, seen: Map<string, number>, hashFlag: number): void {
  const index = seen.get(key);
  if (index !== undefined) {
    w.byte(KEY_SEEN | hashFlag);
    w.varint(index);
    return;
  }
  seen.set(key, seen.size);
  if (isPackableUuid(key)) {
    w.byte(KEY_UUID | hashFlag);
    // 8-4-4-4-12 hex digits, the hyphens skipped.
    for (const [from, to] of UUID_PARTS) w.hex(key, from, to);
    return;
  }
  const event = key.startsWith('evt_') ? EVENT_KEY.exec(key) : null;
  if (event) {
    w.byte((event[2] === undefined ? KEY_EVENT : KEY_EVENT_NTH) | hashFlag);
    w.hex(key, 4, 36);
    if (event[2] !== undefined) w.varint(Number(event[2]));
    return;
  }
  w.byte(KEY_TEXT | hashFlag);
  w.text(key);
}

/** `maps` packed (see the layout above); section names up to 255 bytes. */
export function packHashMaps(maps: HashMaps): Buffer {
  const sections = Object.entries(maps);
  const entryCount = sections.reduce((n, [, map]) => n + Object.keys(map).length, 0);
  const w = new Writer(16 + sections.length * 8 + entryCount * 28);
  const hashBytes = commonHashBytes(maps);
  w.byte(FORMAT);
  w.byte(hashBytes);
  w.byte(sections.length);
  const seen = new Map<string, number>();
  for (const [name, map] of sections) {
    const bytes = Buffer.from(name, 'utf8');
    w.byte(bytes.length);
    w.bytes(bytes);
    const entries = Object.entries(map);
    w.varint(entries.length);
    for (const [key, hash] of entries) {
      const asText = hashBytes === 0 || packedLength(hash) !== hashBytes;
      writeKey(w, key, seen, asText ? HASH_AS_TEXT : 0);
      if (asText) w.text(hash);
      else w.base64url(hash);
    }
  }
  return w.done();
}

class Reader {
  offset = 0;
  constructor(private readonly buf: Buffer) {}

  byte(): number {
    if (this.offset >= this.buf.length) throw new RangeError('packed hash maps: value cut short');
    return this.buf[this.offset++] as number;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
  }

  bytes(n: number): Buffer {
    if (this.offset + n > this.buf.length) throw new RangeError('packed hash maps: value cut short');
    const out = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  text(): string {
    return this.bytes(this.varint()).toString('utf8');
  }
}

/** Sets an own property, `__proto__` included (a plain assignment would change the prototype). */
function setOwn(target: Record<string, string>, key: string, value: string): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true });
  else target[key] = value;
}

function readKey(r: Reader, kind: number, keys: string[]): string {
  if (kind === KEY_SEEN) {
    const key = keys[r.varint()];
    if (key === undefined) throw new RangeError('packed hash maps: reference to an unknown key');
    return key;
  }
  let key: string;
  if (kind === KEY_UUID) key = uuidOf(r.bytes(16));
  else if (kind === KEY_EVENT) key = `evt_${r.bytes(16).toString('hex')}`;
  else if (kind === KEY_EVENT_NTH) key = `evt_${r.bytes(16).toString('hex')}-${r.varint()}`;
  else if (kind === KEY_TEXT) key = r.text();
  else throw new RangeError(`packed hash maps: unknown key kind ${kind}`);
  keys.push(key);
  return key;
}

/** The maps packHashMaps() packed. Throws a RangeError on bytes it did not write. */
export function unpackHashMaps(bytes: Uint8Array): HashMaps {
  const r = new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (r.byte() !== FORMAT) throw new RangeError('packed hash maps: unknown format');
  const hashBytes = r.byte();
  const sections = r.byte();
  const keys: string[] = [];
  const out: HashMaps = {};
  for (let s = 0; s < sections; s++) {
    const name = r.bytes(r.byte()).toString('utf8');
    const map: Record<string, string> = {};
    const entries = r.varint();
    for (let i = 0; i < entries; i++) {
      const tag = r.byte();
      const key = readKey(r, tag & 0x07, keys);
      setOwn(map, key, tag & HASH_AS_TEXT ? r.text() : r.bytes(hashBytes).toString('base64url'));
    }
    out[name] = map;
  }
  if (r.offset !== bytes.byteLength) throw new RangeError('packed hash maps: bytes after the last section');
  return out;
}
