import { describe, expect, it } from 'vitest';
import { loadTransactions, manifestRows } from '../../../src/load/load-transactions.js';
import type { Manifest } from '../../../src/output/manifest.js';
import { manifestFixture } from '../support/manifest-fixture.js';

const manifest = manifestFixture;

const ids = (groups: Manifest[][]) => groups.map((g) => g.map((m) => m.run_id));

describe('loadTransactions', () => {
  it('counts a manifest’s rows over its files', () => {
    expect(manifestRows(manifest('a', 3, 4))).toBe(7);
  });

  it('takes the next manifests while their rows stay within the budget, in order', () => {
    const pending = [manifest('a', 40), manifest('b', 30, 20), manifest('c', 20), manifest('d', 5)];
    expect(ids(loadTransactions(pending, 100))).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('puts a manifest larger than the budget alone, and a budget of 1 gives one manifest per transaction', () => {
    const pending = [manifest('a', 5), manifest('b', 500), manifest('c', 5), manifest('d', 0)];
    expect(ids(loadTransactions(pending, 100))).toEqual([['a'], ['b'], ['c', 'd']]);
    expect(ids(loadTransactions(pending, 1))).toEqual([['a'], ['b'], ['c'], ['d']]);
  });

  it('gives none for none', () => {
    expect(loadTransactions([])).toEqual([]);
  });
});
