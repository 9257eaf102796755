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

function demo(cwd: string, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [DEMO, ...args], { cwd });
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
    expect(first.code, first.stderr).toBe(0);
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
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(join(cwd, 'demo', 'out', '_manifests'))).toHaveLength(2);
    expect(again.stdout).toMatch(/2 manifests loaded, 0 loaded before/);
  });

  it('--accounts: two accounts in one config, one process, one warehouse that tells their rows apart', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hs-demo-accounts-'));
    const first = await demo(cwd, ['--accounts']);
    expect(first.stderr).toBe('');
    expect(first.code, first.stderr).toBe(0);
    const [, second] = first.stdout.split('== second sync: only what changed ==');
    expect(second).toContain('accounts: acme succeeded, globex succeeded');
    // Only acme was changed: its run picks up the three changes and the force-delete, globex's nothing.
    const [acme, globex] = second!.split('account globex');
    expect(acme).toMatch(/conversations +3 +1 +0/);
    expect(globex).toContain('no rows written: nothing changed');
    for (const account of ['acme', 'globex']) {
      expect(readdirSync(join(cwd, 'demo-accounts', 'out', account, '_manifests')), account).toHaveLength(2);
      expect(existsSync(join(cwd, 'demo-accounts', account, 'state.sqlite')), account).toBe(true);
    }
    const [, loaded] = first.stdout.split('== load both accounts into one DuckDB file, then a query ==');
    expect(loaded).toMatch(/succeeded in .*: 4 manifests loaded, 0 loaded before/);
    const rows = [...loaded!.matchAll(/^ {2}(acme|globex) +(Active|Pending|Closed) +(\d+)$/gm)];
    expect(new Set(rows.map((m) => m[1]))).toEqual(new Set(['acme', 'globex']));
    const globexRows = rows.filter((m) => m[1] === 'globex').reduce((n, m) => n + Number(m[3]), 0);
    expect(globexRows).toBe(60);
    expect(readdirSync(cwd)).toEqual(['demo-accounts']);
    // Again in the same place: its own output replaced, not mixed.
    const again = await demo(cwd, ['--accounts']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/4 manifests loaded, 0 loaded before/);
  });
});
