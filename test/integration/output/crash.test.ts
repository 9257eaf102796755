import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStateDb } from '../../../src/state/database.js';
import { builtHarness } from '../../support/built-harness.js';
import { checkInvariants } from './support/check-invariants.js';

// Run as plain JavaScript against dist/ (see builtHarness): over a hundred starts in this file.
const HARNESS = builtHarness(join(import.meta.dirname, 'crash-harness.ts'));
const ROOT = join(import.meta.dirname, '..', '..', '..');
const TOTAL_ROWS = 600;
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface HarnessOptions {
  format: string;
  /** Rows between two marks of the spool (0: none). */
  markEvery: number;
}

function runHarness(
  dir: string,
  crashAt: string | undefined,
  { format, markEvery }: HarnessOptions,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HARNESS_DIR: dir,
    HARNESS_ROWS: String(TOTAL_ROWS),
    HARNESS_FORMAT: format,
    HARNESS_MARK_EVERY: String(markEvery),
  };
  if (crashAt) env.CRASH_AT = crashAt;
  else delete env.CRASH_AT;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HARNESS], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0 && signal === null) reject(new Error(`harness failed (${code}): ${stderr}`));
      else resolve({ code, signal });
    });
  });
}

/**
 * Each scenario kills the harness (SIGKILL, from inside, at a named point) one or
 * more times in a row, checks the invariants after every kill, then lets a last
 * run complete and checks that nothing is missing, pending or listed twice.
 * Points cover row writing, spool files, the pending record, uploads, the local
 * sink between its temp write and rename, both sides of the commit transaction,
 * every step of the manifest, and recovery itself.
 */
/** Not a kill point: deletes the spool directory between a kill and the next run. */
const LOSE_SPOOL = 'lose-spool';

const SCENARIOS: string[][] = [
  ['row-written:1'],
  ['row-written:250'],
  ['file-closed:1'],
  ['file-closed:7'],
  ['pending-recorded:1'],
  ['pending-recorded:4'],
  ['uploaded:1'],
  ['uploaded:5'],
  ['uploaded:12'],
  ['local-file-temp-written:1'],
  ['local-file-temp-written:8'],
  ['before-commit:1'],
  ['before-commit:5'],
  ['after-commit:1'],
  ['after-commit:6'],
  ['manifest-claimed:1'],
  ['local-bytes-temp-written:1'],
  ['manifest-written:1'],
  ['manifest-confirmed:1'],
  ['finished:1'],
  ['before-commit:2', 'recover-resolved:1'],
  ['pending-recorded:3', 'recover-resolved:1'],
  ['manifest-claimed:1', 'recover-manifest:1'],
  ['uploaded:3', 'uploaded:2', 'after-commit:2'],
  // The spool lost with the process (a container's temp disk): pending checkpoints
  // whose files did not all reach the sink cannot be completed and are superseded.
  ['uploaded:5', LOSE_SPOOL],
  ['before-commit:1', LOSE_SPOOL],
  ['pending-recorded:2', LOSE_SPOOL],
];

/**
 * A Parquet commit: rows go to the spool as gzip JSONL, each closed file is
 * converted (`parquet-written`: the Parquet file written, not yet fsynced), then
 * the same protocol. A kill at each step leaves whole Parquet files only.
 */
const PARQUET_SCENARIOS: string[][] = [
  ['row-written:250'],
  ['parquet-written:1'],
  ['parquet-written:6'],
  ['file-closed:3'],
  ['pending-recorded:2'],
  ['uploaded:4'],
  ['local-file-temp-written:3'],
  ['before-commit:2'],
  ['after-commit:3'],
  ['manifest-claimed:1'],
  ['manifest-written:1'],
  ['uploaded:2', 'recover-resolved:1'],
  ['uploaded:5', LOSE_SPOOL],
];

/**
 * Marks of the spool every 25 rows between checkpoints of 100 (HARNESS_MARK_EVERY):
 * a kill keeps what was marked before it, and kills at the mark itself, inside
 * a checkpoint that follows marks, and in the recovery of marks leave nothing
 * missing or written twice.
 */
const MARK_SCENARIOS: string[][] = [
  ['row-written:130'],
  ['marked:1'],
  ['marked:5'],
  ['file-closed:2'],
  ['pending-recorded:2'],
  ['uploaded:3'],
  ['before-commit:2'],
  ['after-commit:2'],
  ['row-written:130', 'recover-resolved:1'],
  ['row-written:160', 'row-written:20', 'marked:2'],
  ['row-written:130', LOSE_SPOOL],
];

async function crashThenComplete(crashes: readonly string[], options: HarnessOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'crash-'));
  dirs.push(dir);
  for (const crashAt of crashes) {
    if (crashAt === LOSE_SPOOL) {
      rmSync(join(dir, 'spool'), { recursive: true, force: true });
      continue;
    }
    const result = await runHarness(dir, crashAt, options);
    expect(result.signal, `${crashAt} was reached`).toBe('SIGKILL');
    await checkInvariants(dir, { complete: false, totalRows: TOTAL_ROWS });
  }
  expect(await runHarness(dir, undefined, options)).toEqual({ code: 0, signal: null });
  await checkInvariants(dir, { complete: true, totalRows: TOTAL_ROWS });
}

const named = (scenarios: string[][]) => scenarios.map((s) => [s.join(' then '), s] as const);

describe.concurrent('crash anywhere (SIGKILL) → the next run completes, nothing missing or listed twice', () => {
  it.each(named(SCENARIOS))('%s', (_name, crashes) => crashThenComplete(crashes, { format: 'jsonl', markEvery: 0 }));
});

describe.concurrent('crash anywhere in a Parquet commit (SIGKILL) → whole Parquet files only, nothing missing', () => {
  it.each(named(PARQUET_SCENARIOS))('%s', (_name, crashes) =>
    crashThenComplete(crashes, { format: 'parquet', markEvery: 0 }),
  );
});

describe.concurrent('crash anywhere with the spool marked between checkpoints → marked rows kept once', () => {
  it.each(named(MARK_SCENARIOS))('%s', (_name, crashes) =>
    crashThenComplete(crashes, { format: 'jsonl', markEvery: 25 }),
  );

  /** Killed at `crashAt`, then recovered and killed right after: the position the committed state holds. */
  async function positionAfterRecovery(crashAt: string): Promise<unknown> {
    const dir = mkdtempSync(join(tmpdir(), 'crash-'));
    dirs.push(dir);
    const options = { format: 'jsonl', markEvery: 25 };
    expect((await runHarness(dir, crashAt, options)).signal).toBe('SIGKILL');
    // The next run recovers, then is killed right after: what recovery kept is committed.
    expect((await runHarness(dir, 'recover-resolved:1', options)).signal).toBe('SIGKILL');
    await checkInvariants(dir, { complete: false, totalRows: TOTAL_ROWS });
    const state = openStateDb(join(dir, 'state.sqlite'));
    try {
      return state.db.prepare("SELECT value FROM kv_state WHERE scope = 'harness' AND key = 'next'").pluck().get();
    } finally {
      state.close();
    }
  }

  it('a kill after a mark keeps the marked rows and position: the next run starts there, not at the checkpoint', async () => {
    // Checkpoint at 100, marks at 125 and 150, killed while writing row 159 (its 160th).
    expect(await positionAfterRecovery('row-written:160')).toBe('150');
  });

  it('a kill while a checkpoint closes its files, before it records them, still keeps the marks before it', async () => {
    // The first checkpoint closes 5 files (conversations 40 + 40 + 20, messages, tags); the
    // second, at 200, follows marks at 125, 150 and 175 and is killed at its first closed file.
    expect(await positionAfterRecovery('file-closed:6')).toBe('175');
  });
});
