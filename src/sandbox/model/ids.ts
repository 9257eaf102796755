import { hash32 } from './random.js';

const TWO_32 = 2 ** 32;
/** An odd multiplier and its inverse modulo 2^32: scrambles neighbouring indexes, reversibly. */
const SCRAMBLE = 0x9e3779b1;
const UNSCRAMBLE = inverseOdd(SCRAMBLE);

function inverseOdd(a: number): number {
  let x = a;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x));
  return x >>> 0;
}

function scramble(value: number): number {
  const x = Math.imul(value, SCRAMBLE) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

function unscramble(value: number): number {
  return Math.imul((value ^ (value >>> 16)) >>> 0, UNSCRAMBLE) >>> 0;
}

function hex(value: number, width: number): string {
  return (value >>> 0)
    .toString(16)
    .padStart(8, '0')
    .slice(8 - width);
}

function mask(seed: number, kind: string): { hi: number; lo: number } {
  return { hi: hash32(seed, kind, 'mask-hi') & 0xffff, lo: hash32(seed, kind, 'mask-lo') };
}

/**
 * A UUID-formatted identifier (API document, Conventions: "Identifiers are
 * strings (UUID-formatted)") derived from (seed, kind, index). The last group
 * carries the index, masked and scrambled reversibly, so `indexOfId` finds a record from its
 * id in O(1) without keeping a map of 200 000 strings.
 */
export function idFor(seed: number, kind: string, index: number): string {
  const a = hash32(seed, kind, index, 1);
  const b = hash32(seed, kind, index, 2);
  const c = hash32(seed, kind, index, 3);
  const m = mask(seed, kind);
  const hi = (Math.floor(index / TWO_32) ^ m.hi) & 0xffff;
  const lo = scramble(((index % TWO_32) ^ m.lo) >>> 0);
  const variant = (8 | (c >>> 30)).toString(16);
  return `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b, 3)}-${variant}${hex(c >>> 16, 3)}-${hex(hi, 4)}${hex(lo, 8)}`;
}

/** The index `idFor(seed, kind, index)` was made from, or undefined when `id` is not one of ours. */
export function indexOfId(seed: number, kind: string, id: string): number | undefined {
  if (typeof id !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)) {
    return undefined;
  }
  const m = mask(seed, kind);
  const hi = (Number.parseInt(id.slice(24, 28), 16) ^ m.hi) & 0xffff;
  const lo = (unscramble(Number.parseInt(id.slice(28, 36), 16)) ^ m.lo) >>> 0;
  const index = hi * TWO_32 + lo;
  return idFor(seed, kind, index) === id ? index : undefined;
}
