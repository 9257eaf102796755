/**
 * Bookkeeping of one run that grows with the account (a key per conversation
 * listed, per contact judged, per suspect of deletion): a million conversations
 * would hold hundreds of MB of JS heap in Maps and Sets. A ScratchSpace keeps it
 * where the run's memory does not grow with it; the sync passes one in (the
 * state store implements it on disk, see src/state/sqlite-scratch-space.ts) and
 * streams fall back to `memoryScratchSpace()` when none is given.
 *
 * Nothing in it survives the run: it is never state, only a working set.
 */
export interface ScratchMap {
  get(key: string): string | undefined;
  has(key: string): boolean;
  set(key: string, value: string): void;
  /** Every key in key order (code-unit order), read lazily; keys set during the iteration may or may not be seen. */
  keys(): Iterable<string>;
}

export interface ScratchSpace {
  /** An empty map for `name`, replacing any earlier map of that name in this space. */
  map(name: string): ScratchMap;
}

/** A ScratchSpace in JS Maps: for tests and small runs; its memory grows with its keys. */
export function memoryScratchSpace(): ScratchSpace {
  return {
    map(): ScratchMap {
      const entries = new Map<string, string>();
      return {
        get: (key) => entries.get(key),
        has: (key) => entries.has(key),
        set: (key, value) => {
          entries.set(key, value);
        },
        keys: () => [...entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
      };
    },
  };
}
