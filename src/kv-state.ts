/**
 * The key-value state contract between the streams, which read committed values
 * and stage changes, and the state database, which commits those changes in the
 * same transaction as the files holding the rows they describe. It lives below
 * both so that neither knows the other.
 */

/**
 * A change to committed state, generic so that the commit protocol needs no
 * knowledge of streams: `scope` groups keys (e.g. `fp:conversations`), `value`
 * null deletes the key. Changes are staged and applied only once every row
 * emitted before them is durable in the sink (docs/architecture.md).
 */
export interface StateChange {
  scope: string;
  key: string;
  value: StateValue | null;
}

/** A committed value: text, or bytes for values kept in a packed binary form (a thread's row hashes). */
export type StateValue = string | Uint8Array;

/** Read-only view of committed state that streams consult (they never touch SQLite). */
export interface StateReader {
  get(scope: string, key: string): StateValue | undefined;
  /** Every key of a scope, in no particular order. */
  keys(scope: string): Iterable<string>;
  /**
   * One committed key read straight from the store, without loading its whole
   * scope into memory: for large scopes of which a run reads few keys (the
   * per-conversation thread maps of fp:thread). Optional; streams fall back to
   * `get` when a reader does not have it.
   */
  lookup?(scope: string, key: string): StateValue | undefined;
  /**
   * Every key of a scope as committed now, in key order, read from the store a
   * chunk at a time (never the whole scope in memory). Keys committed while the
   * iteration runs may or may not be seen. Optional; streams fall back to `keys`.
   */
  scanKeys?(scope: string): Iterable<string>;
  /** How many keys a scope holds as committed now. Optional; streams fall back to counting `keys`. */
  countKeys?(scope: string): number;
}
