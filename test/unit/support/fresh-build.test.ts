import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { staleBuild } from '../../support/fresh-build.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'fresh-build-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes each path under the root with its modification time that many seconds in the past. */
function files(ages: Record<string, number>): void {
  for (const [path, secondsAgo] of Object.entries(ages)) {
    const full = join(root, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, '');
    const at = Date.now() / 1000 - secondsAgo;
    utimesSync(full, at, at);
  }
}

describe('staleBuild', () => {
  it('is stale without dist/, current after a build, stale again when any source or tsconfig changes', () => {
    files({ 'src/cli/main.ts': 100, 'src/api/client.ts': 100, 'tsconfig.json': 100 });
    expect(staleBuild(root)).toBe('no dist/');
    files({ 'dist/cli/main.js': 50, 'dist/api/client.js': 50, 'dist/api/client.js.map': 50 });
    expect(staleBuild(root)).toBeUndefined();
    files({ 'src/api/client.ts': 10 });
    expect(staleBuild(root)).toBe('a source is newer than dist/');
    files({ 'src/api/client.ts': 100, 'tsconfig.build.json': 10 });
    expect(staleBuild(root)).toBe('a source is newer than dist/');
  });

  it('dates the build by its oldest output: a build that stopped half way is stale', () => {
    files({ 'src/a.ts': 30, 'dist/a.js': 10, 'dist/b.js': 60 });
    expect(staleBuild(root)).toBe('a source is newer than dist/');
    // A source map is not an output that dates the build.
    files({ 'dist/b.js': 10, 'dist/b.js.map': 60 });
    expect(staleBuild(root)).toBeUndefined();
  });
});
