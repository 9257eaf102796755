import type { Manifest } from '../../../src/output/manifest.js';

/** A manifest whose `tags` files hold the given rows (none: a manifest without files). */
export function manifestFixture(runId: string, ...rows: number[]): Manifest {
  return {
    manifest_version: 1,
    run_id: runId,
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: '2026-01-01T00:00:01.000Z',
    schema_version: 'x',
    location: 'test',
    files: rows.map((n, i) => ({
      key: `tags/${runId}-${i}.jsonl.gz`,
      table: 'tags',
      rows: n,
      bytes: 1,
      sha256: 'x',
      schema_version: 'x',
      run_id: runId,
    })),
    rejected_files: [],
    tables: {},
    rejected: {},
  };
}
