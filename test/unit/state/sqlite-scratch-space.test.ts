import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryScratchSpace, type ScratchSpace } from '../../../src/scratch-space.js';
import { openSqliteScratchSpace } from '../../../src/state/sqlite-scratch-space.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hs-scratch-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The SQLite scratch space must behave as the in-memory one, across its write batches and key chunks. */
function exercise(space: ScratchSpace) {
  const listed = space.map('listed');
  const other = space.map('other');
  // More keys than one write batch (2000) and one read chunk (1000), set out of order.
  for (let i = 4999; i >= 0; i -= 1) listed.set(`k${String(i).padStart(5, '0')}`, `v${i}`);
  listed.set('k00007', 'changed');
  listed.set('', 'empty key');
  other.set('k00001', 'other map');
  return { listed, other };
}

describe('openSqliteScratchSpace', () => {
  it('keeps maps apart, answers from buffered and written entries, and lists keys in order', () => {
    const path = join(dir, 'scratch.sqlite');
    const space = openSqliteScratchSpace(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const { listed, other } = exercise(space);
    const memory = exercise(memoryScratchSpace());
    expect(listed.get('k04999')).toBe('v4999');
    expect(listed.get('k00007')).toBe('changed');
    expect(listed.get('')).toBe('empty key');
    expect(listed.has('k05000')).toBe(false);
    expect(other.get('k00001')).toBe('other map');
    expect(other.has('k00002')).toBe(false);
    expect([...listed.keys()]).toEqual([...memory.listed.keys()]);
    expect([...listed.keys()]).toHaveLength(5001);
    expect([...other.keys()]).toEqual(['k00001']);
    space.close();
    expect(existsSync(path)).toBe(false);
    space.close();
  });

  it('a key set while the keys are read is stored, and asking for a map again starts it empty', () => {
    const space = openSqliteScratchSpace(join(dir, 'scratch.sqlite'));
    const map = space.map('m');
    for (let i = 0; i < 2500; i += 1) map.set(`a${String(i).padStart(4, '0')}`, '');
    let seen = 0;
    for (const key of map.keys()) {
      seen += 1;
      if (seen === 1) map.set(`z-added-during-${key}`, '');
    }
    expect(seen).toBeGreaterThanOrEqual(2500);
    expect(map.has('z-added-during-a0000')).toBe(true);
    expect([...space.map('m').keys()]).toEqual([]);
    space.close();
  });

  it('replaces a file a crashed run left behind', () => {
    const path = join(dir, 'scratch.sqlite');
    const crashed = openSqliteScratchSpace(path);
    const left = crashed.map('listed');
    // Enough entries to be written to the file, which is never closed (the crash).
    for (let i = 0; i < 2000; i += 1) left.set(`old${i}`, 'x');
    expect(existsSync(path)).toBe(true);
    const next = openSqliteScratchSpace(path);
    expect(next.map('listed').has('old1')).toBe(false);
    next.close();
    crashed.close();
  });
});
