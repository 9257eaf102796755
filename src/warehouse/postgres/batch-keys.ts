/**
 * Whether every row of one table's batch holds a key no other row holds, as Node
 * saw the rows while encoding them (typed-copy-rows.ts). Then each row is its
 * key's latest, and the merge may skip PostgreSQL's DISTINCT ON, a sort of the
 * batch's whole rows (postgres-dialect.ts). A key seen twice, a row without a
 * key Node can compare as the server does (typed-copy-rows.ts), or a row Node
 * did not see (the landing path types it on the server) settles it: the batch
 * may repeat a key.
 *
 * Keys are kept as 64-bit fingerprints in an open-addressing table of typed
 * arrays, not as strings in a Set: for the 350 000 messages of the load
 * benchmark, a Set took 0.9 s of Node's time and gave the garbage collector a
 * third of a million strings to trace, on the thread that encodes the rows.
 * Two keys with one fingerprint read as a repeat, which costs only the ranking
 * (the merge is right either way); among a million keys, for hashes that
 * spread them evenly, that is about one chance in thirty million.
 */
export interface BatchKeys {
  /** One row's key, as text (undefined: the row has none). */
  see(key: string | undefined): void;
  /**
   * Lets the keys seen go, and `unique` is false from then on: a row reached the
   * batch without Node seeing its key, or the batch is merged.
   */
  letGo(): void;
  /** True while no key was seen twice and every row's key was seen. */
  readonly unique: boolean;
}

/** Slots to start with; the table doubles when half full. */
const FIRST_SLOTS = 1024;

export function batchKeys(): BatchKeys {
  let slots = FIRST_SLOTS;
  // A slot is empty while its low half is 0, which no fingerprint's is (see `fingerprint`).
  let high: Uint32Array | undefined = new Uint32Array(slots);
  let low = new Uint32Array(slots);
  let count = 0;
  let hashHigh = 0;
  let hashLow = 0;

  /** Two 32-bit FNV-1a hashes of the key's UTF-16 units, with different offsets and primes. */
  function fingerprint(key: string): void {
    let a = 0x811c9dc5;
    let b = 0x050c5d1f;
    for (let i = 0; i < key.length; i++) {
      const unit = key.charCodeAt(i);
      a = Math.imul(a ^ unit, 0x01000193);
      b = Math.imul(b ^ unit, 0x5bd1e995);
    }
    hashHigh = a >>> 0;
    hashLow = b >>> 0 || 1;
  }

  /** Whether the fingerprint (`h`, `l`) was in the slots `highs`/`lows`; puts it there if not. */
  function put(highs: Uint32Array, lows: Uint32Array, h: number, l: number): boolean {
    const mask = slots - 1;
    for (let i = l & mask; ; i = (i + 1) & mask) {
      if (lows[i] === 0) {
        highs[i] = h;
        lows[i] = l;
        return false;
      }
      if (lows[i] === l && highs[i] === h) return true;
    }
  }

  function grow(): void {
    const [oldHigh, oldLow] = [high!, low];
    slots *= 2;
    high = new Uint32Array(slots);
    low = new Uint32Array(slots);
    for (let i = 0; i < oldLow.length; i++) if (oldLow[i] !== 0) put(high, low, oldHigh[i]!, oldLow[i]!);
  }

  const letGo = () => {
    high = undefined;
    low = new Uint32Array(0);
  };

  return {
    see(key) {
      if (high === undefined) return;
      if (key === undefined) return letGo();
      fingerprint(key);
      if (put(high, low, hashHigh, hashLow)) return letGo();
      count += 1;
      if (count * 2 > slots) grow();
    },
    letGo,
    get unique() {
      return high !== undefined;
    },
  };
}
