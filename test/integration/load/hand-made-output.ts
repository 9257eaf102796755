import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Manifest } from '../../../src/output/manifest.js';

/** A tags row as a JSONL line; a tombstone with `deleted`. */
export const tag = (id: string, synced = '2026-01-01T00:00:00.000Z', deleted = false) =>
  JSON.stringify({
    id,
    inbox_id: 'i1',
    name: `tag ${id}`,
    color: '#000000',
    _synced_at: synced,
    _run_id: 'r',
    _deleted: deleted,
    _extra: null,
    _account: 'acme',
  });

/** Writes a tags file and its manifest, as a sync would, under `root`; returns the file's path. */
export function writeTagsRun(root: string, runId: string, lines: string[]): string {
  const key = `tags/dt=2026-01-01/${runId}-0001.jsonl.gz`;
  const body = gzipSync(`${lines.join('\n')}\n`);
  const path = join(root, 'out', key);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, body);
  const file = {
    key,
    table: 'tags',
    rows: lines.length,
    bytes: body.length,
    sha256: createHash('sha256').update(body).digest('hex'),
    schema_version: 'x',
    run_id: runId,
  };
  const manifest: Manifest = {
    manifest_version: 1,
    run_id: runId,
    started_at: `${runId.slice(0, 4)}-01-01T00:00:00.000Z`,
    finished_at: `${runId.slice(0, 4)}-01-01T00:00:01.000Z`,
    schema_version: 'x',
    location: 'test',
    files: [file],
    rejected_files: [],
    tables: { tags: lines.length },
    rejected: {},
    account: 'acme',
  };
  mkdirSync(join(root, 'out', '_manifests'), { recursive: true });
  writeFileSync(join(root, 'out', '_manifests', `${runId}.json`), JSON.stringify(manifest));
  return path;
}
