import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { staleBuild } from '../../support/fresh-build.js';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes `path` under the root with its modification time `secondsAgo` in the past. */
function file(path: string, secondsAgo: number): void {
  const full = join(root, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, '');
  const at = Date.now() / 1000 - secondsAgo;
  utimesSync(full, at, at);
}

describe('staleBuild', () => {
  it('is stale without dist/, current after a build, stale again when any source or tsconfig changes', () => {
    root = mkdtempSync(join(tmpdir(), 'fresh-build-'));
    file('src/cli/main.ts', 100);
    file('src/api/client.ts', 100);
    file('tsconfig.json', 100);
    expect(staleBuild(root)).toBe('no dist/');

    file('dist/cli/main.js', 50);
    file('dist/api/client.js', 50);
    file('dist/api/client.js.map', 50);
    expect(staleBuild(root)).toBeUndefined();

    file('src/api/client.ts', 10);
    expect(staleBuild(root)).toBe('a source is newer than dist/');
    file('src/api/client.ts', 100);
    file('tsconfig.build.json', 10);
    expect(staleBuild(root)).toBe('a source is newer than dist/');
  });

  it('dates the build by its oldest output: a build that stopped half way is stale', () => {
    root = mkdtempSync(join(tmpdir(), 'fresh-build-'));
    file('src/a.ts', 30);
    file('dist/a.js', 10);
    file('dist/b.js', 60);
    expect(staleBuild(root)).toBe('a source is newer than dist/');
    // Source maps and other files are not outputs that date the build.
    file('dist/b.js', 10);
    file('dist/b.js.map', 60);
    expect(staleBuild(root)).toBeUndefined();
  });
});
