/**
 * Batches of `tags` rows drawn at random, for holding one merge against another:
 * ids from a small pool (so some repeat) in two accounts (so one id is two keys),
 * three distinct `_synced_at` values (so rows tie on it), one in seven a
 * tombstone, and optionally NULL keys.
 */

/** The VALUES of a batch of `n` rows (`tags` columns); `nullKeys`: one in twenty ids NULL. */
export function batchRows(next: () => number, n: number, round: number, nullKeys: boolean): string {
  const rows: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = nullKeys && next() < 0.05 ? 'NULL' : `'c-${Math.floor(next() * n * 0.8)}'`;
    const at = `TIMESTAMPTZ '2026-01-0${1 + Math.floor(next() * 3)} 00:00:00+00'`;
    // Unique per row: two rows of a key never tie on both, where either merge may keep either.
    const run = `'run-${round}-${String(Math.floor(next() * 1000)).padStart(3, '0')}-${i}'`;
    const deleted = next() < 0.15 ? 'true' : 'false';
    const account = next() < 0.5 ? "'acme'" : "'globex'";
    rows.push(`(${id}, 'inbox', 'name ${round}-${i}', 'red', ${at}, ${run}, ${deleted}, NULL, ${account})`);
  }
  return rows.join(',\n');
}
