import type { Manifest } from '../output/manifest.js';

/**
 * Rows one load transaction takes at most, counted from the manifests' files.
 * Several small manifests share a transaction (one commit, one merge per table,
 * appends large enough for the engines' bulk writes); a failure rolls back at
 * most this many rows' work before the manifests are retried one by one.
 */
export const TRANSACTION_ROWS = 1_000_000;

/** A manifest's rows over its data files. */
export function manifestRows(manifest: Manifest): number {
  return manifest.files.reduce((n, f) => n + f.rows, 0);
}

/**
 * The pending manifests cut into transactions, in load order: each takes the
 * next manifests while their rows stay within `budget`; a manifest larger than
 * the budget goes alone.
 */
export function loadTransactions(pending: readonly Manifest[], budget = TRANSACTION_ROWS): Manifest[][] {
  const out: Manifest[][] = [];
  let current: Manifest[] = [];
  let rows = 0;
  for (const manifest of pending) {
    const size = manifestRows(manifest);
    if (current.length > 0 && rows + size > budget) {
      out.push(current);
      current = [];
      rows = 0;
    }
    current.push(manifest);
    rows += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}
