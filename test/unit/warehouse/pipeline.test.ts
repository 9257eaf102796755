import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/output/manifest.js';
import {
  describeRefusal,
  type PipelineRecord,
  pipelineDifferences,
  pipelineOf,
  planPipelines,
} from '../../../src/warehouse/pipeline.js';

const manifest = (runId: string, over: Partial<Manifest> = {}): Manifest => ({
  manifest_version: 1,
  run_id: runId,
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: '2026-01-01T00:00:01.000Z',
  schema_version: 'set1',
  location: 'local directory /out',
  files: [],
  rejected_files: [],
  tables: {},
  rejected: {},
  source: { base_url: 'https://a.example/v1', organization: { slug: 'acme', company: 'Acme' } },
  ...over,
});

describe('pipeline identity', () => {
  it('source, destination, privacy policy and hash key tell pipelines apart; what is not recorded matches', () => {
    const base = pipelineOf(manifest('r1'));
    expect(pipelineDifferences(base, pipelineOf(manifest('r2', { schema_version: 'set2' })))).toEqual([]);
    const other = manifest('r3', {
      source: { base_url: 'https://b.example/v1', organization: { slug: 'acme', company: 'Acme' } },
      location: 'local directory /elsewhere',
      privacy: { contacts: { email: 'hash' } },
    });
    expect(pipelineDifferences(base, pipelineOf(other))).toEqual(['source', 'destination', 'privacy policy']);
    const orgOnly = manifest('r4', {
      source: { base_url: 'https://a.example/v1', organization: { slug: 'other', company: 'Acme' } },
    });
    expect(pipelineDifferences(base, pipelineOf(orgOnly))).toEqual(['source']);
    expect(pipelineDifferences(base, pipelineOf(manifest('r5', { source: undefined })))).toEqual([]);
    const hashed = (key: string) =>
      pipelineOf(manifest('k', { privacy: { contacts: { email: 'hash' } }, privacy_key: key }));
    expect(pipelineDifferences(hashed('aaa'), hashed('bbb'))).toEqual(['privacy hash key']);
  });

  it('an empty warehouse takes the first pipeline; another is refused, every manifest checked before any loads', () => {
    const plan = planPipelines(
      [],
      [manifest('r1'), manifest('r2', { location: 'local directory /b' }), manifest('r3')],
      false,
    );
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.others.map((o) => o.run_id)).toEqual(['r2']);
    const text = describeRefusal('duckdb:/w.duckdb', plan);
    expect(text).toContain('manifest r2 comes from another pipeline (destination differ)');
    expect(text).toContain(
      'duckdb:/w.duckdb holds: source https://a.example/v1 (organization acme, "Acme"); output local directory /out; no privacy policy',
    );
    expect(text).toContain(
      'manifest r2: source https://a.example/v1 (organization acme, "Acme"); output local directory /b',
    );
  });

  it('--mix-pipelines holds both; a record made without a source takes it from the first manifest that names it', () => {
    const mixed = planPipelines([], [manifest('r1'), manifest('r2', { location: 'local directory /b' })], true);
    expect(mixed.ok && [...mixed.statements.values()].map((s) => s.sql.split(' ')[0])).toEqual(['INSERT', 'INSERT']);
    const old: PipelineRecord = {
      ...pipelineOf(manifest('r0', { source: undefined })),
      pipeline_id: 1,
      first_run_id: 'r0',
      last_run_id: 'r0',
    };
    const filled = planPipelines([old], [manifest('r1', { schema_version: 'set2' })], false);
    expect(filled.ok).toBe(true);
    if (!filled.ok) return;
    expect(filled.statements.get('r1')?.params).toEqual([
      1,
      'https://a.example/v1',
      'acme',
      'Acme',
      null,
      'set2',
      'r1',
    ]);
  });
});
