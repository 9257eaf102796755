import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoFolder, prepareDemoFolder } from '../../../src/demo/demo-folder.js';
import { openStateDb } from '../../../src/state/database.js';

/** A demo folder as a finished demo run leaves it: output files recorded in its state, and a manifest. */
function previousDemo() {
  const folder = demoFolder(join(mkdtempSync(join(tmpdir(), 'hs-demo-folder-')), 'demo'));
  prepareDemoFolder(folder);
  const key = 'conversations/dt=2026-11-24/20261124T060000Z-abcdef-0001.jsonl.gz';
  mkdirSync(join(folder.out, 'conversations', 'dt=2026-11-24'), { recursive: true });
  mkdirSync(join(folder.out, '_manifests'), { recursive: true });
  writeFileSync(join(folder.out, key), 'gz');
  writeFileSync(join(folder.out, '_manifests', '20261124T060000Z-abcdef.json'), '{}');
  const state = openStateDb(folder.state);
  state.db
    .prepare("INSERT INTO runs (run_id, started_at, status, manifest_state) VALUES (?, ?, 'finished', 'written')")
    .run('20261124T060000Z-abcdef', '2026-11-24T06:00:00.000Z');
  state.db
    .prepare("INSERT INTO checkpoints (checkpoint_id, run_id, status, created_at) VALUES (1, ?, 'committed', ?)")
    .run('20261124T060000Z-abcdef', '2026-11-24T06:00:01.000Z');
  state.db
    .prepare(
      `INSERT INTO files (key, checkpoint_id, run_id, table_name, kind, rows, bytes, sha256, schema_version, status)
       VALUES (?, 1, ?, 'conversations', 'data', 1, 2, 'x', 'v', 'committed')`,
    )
    .run(key, '20261124T060000Z-abcdef');
  state.close();
  return { folder, key };
}

describe('the demo folder', () => {
  it('refuses a folder it did not make', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'hs-demo-folder-')), 'demo');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    expect(() => prepareDemoFolder(demoFolder(dir))).toThrow(
      `${dir} exists and was not made by the demo; move it away or run the demo in another directory`,
    );
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it('removes what its previous run wrote (files, manifests, state) and starts empty', () => {
    const { folder } = previousDemo();
    prepareDemoFolder(folder);
    expect(readdirSync(folder.out)).toEqual([]);
    expect(existsSync(folder.state)).toBe(false);
    expect(existsSync(folder.marker)).toBe(true);
  });

  it('deletes nothing when its output holds a file its state never wrote', () => {
    const { folder, key } = previousDemo();
    const foreign = join(folder.out, 'conversations', 'dt=2026-11-24', '20261124T070000Z-zzzzzz-0001.jsonl.gz');
    writeFileSync(foreign, 'another config wrote this');
    expect(() => prepareDemoFolder(folder)).toThrow(
      `${folder.out} holds 1 file(s) the demo did not write (first: ${foreign}); the demo deletes only its own output: ` +
        'move them away, or run the demo in another directory',
    );
    expect(existsSync(join(folder.out, key))).toBe(true);
    expect(existsSync(foreign)).toBe(true);
    expect(existsSync(folder.state)).toBe(true);
  });
});
