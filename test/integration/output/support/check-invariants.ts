import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import type { Manifest } from '../../../../src/output/manifest.js';
import type { StoredFile } from '../../../../src/state/checkpoint-store.js';
import { openStateDb } from '../../../../src/state/database.js';
import { readOutputFile } from './read-parquet.js';

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/**
 * The crash-test invariants, read from the state database and the output directory:
 * - every committed file is in the sink, whole (sha256, row count; a Parquet file read back by hyparquet);
 * - the committed position never runs ahead of the committed rows;
 * - no file is listed by two manifests, and manifests list only committed files;
 * when `complete`: every row is there, nothing is pending, every committed file is
 * listed exactly once, and the sink holds nothing but committed files and manifests.
 */
export async function checkInvariants(dir: string, options: { complete: boolean; totalRows: number }): Promise<void> {
  const out = join(dir, 'out');
  const state = openStateDb(join(dir, 'state.sqlite'));
  try {
    const files = state.db.prepare('SELECT * FROM files').all() as StoredFile[];
    const committed = files.filter((f) => f.status === 'committed');
    const ids = new Set<unknown>();
    let conversationRows = 0;
    for (const f of committed) {
      const path = join(out, f.key);
      expect(existsSync(path), `committed file ${f.key} is in the sink`).toBe(true);
      const data = readFileSync(path);
      expect(createHash('sha256').update(data).digest('hex')).toBe(f.sha256);
      const rows = await readOutputFile(path);
      expect(rows).toHaveLength(f.rows);
      if (f.table_name === 'conversations' && f.kind === 'data') {
        conversationRows += rows.length;
        for (const r of rows) ids.add(r.id);
      }
    }
    expect(conversationRows, 'no row is committed twice').toBe(ids.size);
    const next = Number(
      (state.db.prepare("SELECT value FROM kv_state WHERE scope = 'harness' AND key = 'next'").pluck().get() as
        | string
        | undefined) ?? '0',
    );
    // One expectation for the whole range (an expect() per row cost seconds over the crash series).
    const missing = Array.from({ length: next }, (_, i) => `c-${i}`).filter((id) => !ids.has(id));
    expect(missing, `rows below position ${next} that are not committed`).toEqual([]);
    const orphanChanges = state.db
      .prepare(
        "SELECT count(*) FROM pending_state p JOIN checkpoints c USING (checkpoint_id) WHERE c.status <> 'pending'",
      )
      .pluck()
      .get();
    expect(orphanChanges).toBe(0);

    const manifestDir = join(out, '_manifests');
    const manifests = walk(manifestDir)
      .filter((p) => p.endsWith('.json'))
      .map((p) => JSON.parse(readFileSync(p, 'utf8')) as Manifest);
    const listed = manifests.flatMap((m) => [...m.files, ...m.rejected_files].map((f) => f.key));
    expect(new Set(listed).size, 'no file is listed by two manifests').toBe(listed.length);
    const committedKeys = new Set(committed.map((f) => f.key));
    expect(
      listed.filter((key) => !committedKeys.has(key)),
      'files listed by a manifest that are not committed',
    ).toEqual([]);

    if (!options.complete) return;
    expect(next).toBe(options.totalRows);
    expect(ids.size).toBe(options.totalRows);
    expect(state.db.prepare("SELECT count(*) FROM checkpoints WHERE status = 'pending'").pluck().get()).toBe(0);
    expect(new Set(listed)).toEqual(committedKeys);
    const stored = walk(out)
      .map((p) => relative(out, p))
      .filter((k) => !k.includes('.tmp-') && !k.startsWith('_manifests/'));
    expect(new Set(stored)).toEqual(committedKeys);
  } finally {
    state.close();
  }
}
