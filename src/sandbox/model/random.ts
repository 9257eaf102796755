/**
 * Small deterministic randomness: everything the sandbox generates is a pure
 * function of (seed, what, index), so the same seed always serves the same data
 * and runs are reproducible.
 */

function mix(h: number, value: number): number {
  let k = Math.imul(value, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  const x = h ^ k;
  return (Math.imul((x << 13) | (x >>> 19), 5) + 0xe6546b64) | 0;
}

/**
 * Mixes numbers and strings into one unsigned 32-bit value (murmur3-style
 * rounds; numbers are mixed as two 32-bit halves, strings char by char, each
 * part tagged by its type so ("1") and (1) differ).
 */
export function hash32(...parts: Array<number | string>): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    if (typeof part === 'number') {
      h = mix(h, 0x4e554d);
      h = mix(h, part >>> 0);
      h = mix(h, Math.floor(part / 4294967296) >>> 0);
    } else {
      h = mix(h, 0x535452 ^ part.length);
      for (let i = 0; i < part.length; i++) h = mix(h, part.charCodeAt(i));
    }
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** mulberry32: a tiny, fast PRNG, good enough for fake data and fault draws. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
}

export function rngFor(...parts: Array<number | string>): Rng {
  return new Rng(hash32(...parts));
}
