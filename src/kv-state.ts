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
  value: string | null;
}

/** Read-only view of committed state that streams consult (they never touch SQLite). */
export interface StateReader {
  get(scope: string, key: string): string | undefined;
  /** Every key of a scope, in no particular order. */
  keys(scope: string): Iterable<string>;
  /**
   * One committed key read straight from the store, without loading its whole
   * scope into memory: for large scopes of which a run reads few keys (the
   * per-conversation thread maps of fp:thread). Optional; streams fall back to
   * `get` when a reader does not have it.
   */
  lookup?(scope: string, key: string): string | undefined;
}
