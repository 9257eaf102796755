import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEMO_QUERY } from '../../src/demo/load-and-query.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// `npm run demo`'s script, by absolute path: the demo runs in a fresh directory, as a user's would.
const DEMO = join(ROOT, 'dist', 'demo', 'main.js');

function demo(cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [DEMO], { cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => {
    stdout += c;
  });
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('npm run demo', () => {
  it('syncs the sandbox, changes it through the API, and shows what the second run picked up', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hs-demo-'));
    const first = await demo(cwd);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const [, second] = first.stdout.split('== second sync: only what changed ==');
    // Three conversations changed (reply, status, trash) and one was force-deleted.
    expect(second).toMatch(/conversations +3 +1 +0/);
    expect(second).toMatch(/messages +1 +[1-9]\d* +0/);
    expect(second).toMatch(/threads fetched 3/);
    expect(readdirSync(join(cwd, 'demo', 'out', '_manifests'))).toHaveLength(2);
    expect(existsSync(join(cwd, 'demo', 'state.sqlite'))).toBe(true);
    // Only its own folder: nothing where the example configs write.
    expect(readdirSync(cwd)).toEqual(['demo']);
    // It ends in tables: both runs loaded into a DuckDB file, and the query answered from it
    // counts every conversation the second run listed.
    const [, loaded] = first.stdout.split('== load into DuckDB, then a query ==');
    expect(loaded).toMatch(/succeeded in .*: 2 manifests loaded, 0 loaded before/);
    expect(loaded).toContain(`"${DEMO_QUERY}"`);
    const counts = [...loaded!.matchAll(/^ {2}(Active|Pending|Closed) +(\d+)$/gm)].map((m) => Number(m[2]));
    expect(counts).toHaveLength(3);
    const scanned = Number(/conversations listed (\d+)/.exec(second!)?.[1]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(scanned);
    expect(existsSync(join(cwd, 'demo', 'helpdesk.duckdb'))).toBe(true);
    // It runs again from scratch in the same place (its own output is replaced, not mixed).
    const again = await demo(cwd);
    expect(again.code).toBe(0);
    expect(readdirSync(join(cwd, 'demo', 'out', '_manifests'))).toHaveLength(2);
    expect(again.stdout).toMatch(/2 manifests loaded, 0 loaded before/);
  });
});
