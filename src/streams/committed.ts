import type { StateReader, StateValue } from './types.js';

/**
 * Reads of committed state for scopes that grow with the account (one key per
 * conversation or contact): straight from the store when the reader can, so a
 * run never holds such a scope whole in memory; through the snapshot otherwise.
 */
export function committedValue(state: StateReader, scope: string, key: string): StateValue | undefined {
  return state.lookup ? state.lookup(scope, key) : state.get(scope, key);
}

/** Every committed key of a large scope, read a chunk at a time when the reader can. */
export function committedKeys(state: StateReader, scope: string): Iterable<string> {
  return state.scanKeys ? state.scanKeys(scope) : state.keys(scope);
}

/** How many keys a large scope holds. */
export function committedCount(state: StateReader, scope: string): number {
  if (state.countKeys) return state.countKeys(scope);
  let n = 0;
  for (const _ of state.keys(scope)) n += 1;
  return n;
}
