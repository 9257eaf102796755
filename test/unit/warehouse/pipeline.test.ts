import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/output/manifest.js';
import { accountBackfill } from '../../../src/warehouse/evolution/account-evolution.js';
import {
  accountOfManifest,
  type PipelineRecord,
  pipelineDifferences,
  pipelineOf,
  pipelineRecords,
} from '../../../src/warehouse/pipeline.js';
import { describeRefusal, planPipelines } from '../../../src/warehouse/plan-pipelines.js';

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
      { mix: false },
    );
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.others.map((o) => o.run_id)).toEqual(['r2']);
    const text = describeRefusal('duckdb:/w.duckdb', plan);
    expect(text).toContain('manifest r2 comes from another pipeline (destination differ)');
    expect(text).toContain(
      'duckdb:/w.duckdb holds: account acme; source https://a.example/v1 (organization acme, "Acme"); output local directory /out; no privacy policy',
    );
    expect(text).toContain(
      'manifest r2: account acme; source https://a.example/v1 (organization acme, "Acme"); output local directory /b',
    );
  });

  it('--mix-pipelines holds both; a record made without a source takes it from the first manifest that names it', () => {
    const mixed = planPipelines([], [manifest('r1'), manifest('r2', { location: 'local directory /b' })], {
      mix: true,
    });
    expect(mixed.ok && [...mixed.statements.values()].map((s) => s.sql.split(' ')[0])).toEqual(['INSERT', 'INSERT']);
    const old: PipelineRecord = {
      ...pipelineOf(manifest('r0', { source: undefined })),
      pipeline_id: 1,
      first_run_id: 'r0',
      last_run_id: 'r0',
    };
    const filled = planPipelines([old], [manifest('r1', { schema_version: 'set2' })], { mix: false });
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
      'acme',
      'local directory /out',
    ]);
  });
});

const held = (m: Manifest, id = 1, account?: string | null): PipelineRecord => ({
  ...pipelineOf(m, account === undefined ? accountOfManifest(m) : account),
  pipeline_id: id,
  first_run_id: m.run_id,
  last_run_id: m.run_id,
});

describe('one pipeline per account', () => {
  const acme = (runId: string, over: Partial<Manifest> = {}) =>
    manifest(runId, { account: 'acme', location: 'local directory /out/acme', ...over });
  const globex = (runId: string, over: Partial<Manifest> = {}) =>
    manifest(runId, {
      account: 'globex',
      location: 'local directory /out/globex',
      source: { base_url: 'https://g.example/v1', organization: { slug: 'globex', company: 'Globex' } },
      ...over,
    });

  it('the account of a manifest: its own, else the name it was synced as, else its organization (else the host)', () => {
    expect(accountOfManifest(manifest('r1', { account: 'eu' }), 'other')).toBe('eu');
    expect(accountOfManifest(manifest('r1'), 'eu')).toBe('eu');
    expect(accountOfManifest(manifest('r1'))).toBe('acme');
    const noSlug = manifest('r1', {
      source: { base_url: 'https://h.example:8443/v1', organization: { slug: null, company: null } },
    });
    expect(accountOfManifest(noSlug)).toBe('h.example:8443');
    expect(accountOfManifest(manifest('r1', { source: undefined }))).toBeNull();
    // A record made before records named their account: the one its source names.
    const [record] = pipelineRecords([
      {
        pipeline_id: 1,
        source_base_url: 'https://a.example/v1',
        organization_slug: 'acme',
        destination: 'd',
        privacy_policy: 'none',
        schema_set: 's',
        first_run_id: 'r',
        last_run_id: 'r',
      },
    ]);
    expect(record!.account).toBe('acme');
  });

  it('a load that runs accounts by name adds each account’s first pipeline beside the others', () => {
    const plan = planPipelines([held(acme('r1'))], [globex('r2'), acme('r3'), globex('r4')], {
      mix: false,
      accounts: new Set(['acme', 'globex']),
    });
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect([...plan.statements.values()].map((s) => [s.sql.split(' ')[0], s.params[0]])).toEqual([
      ['INSERT', 2],
      ['UPDATE', 1],
      ['UPDATE', 2],
    ]);
    expect(plan.statements.get('r2')?.params.at(-1)).toBe('globex');
  });

  it('a load that does not run an account by name refuses its pipeline, as before (a token of another organization)', () => {
    const plan = planPipelines([held(manifest('r1'))], [manifest('r2', { source: globex('x').source })], {
      mix: false,
    });
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(describeRefusal('duckdb:/w.duckdb', plan)).toContain('comes from another pipeline (account, source differ)');
  });

  it('another pipeline of an account the target holds (the same name, another source) is refused, named by what differs', () => {
    const other = acme('r2', { source: globex('x').source });
    const plan = planPipelines([held(acme('r1')), held(globex('r0'), 2)], [other], {
      mix: false,
      accounts: new Set(['acme', 'globex']),
    });
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.others[0]!.differs).toEqual(['source']);
    const text = describeRefusal('duckdb:/w.duckdb', plan);
    expect(text).toContain('manifest r2 comes from another pipeline (source differ)');
    expect(text).toContain('manifest r2: account acme; source https://g.example/v1 (organization globex, "Globex")');
    expect(planPipelines([held(acme('r1'))], [other], { mix: true, accounts: new Set(['acme']) }).ok).toBe(true);
  });

  it('the organization of a held pipeline under another name is refused: its rows would be stored twice', () => {
    const renamed = manifest('r2', { account: 'eu', location: 'local directory /out/eu' });
    const plan = planPipelines([held(manifest('r1'))], [renamed], { mix: false, accounts: new Set(['eu']) });
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.others[0]!.differs).toEqual(['account', 'destination']);
    expect(planPipelines([held(manifest('r1'))], [renamed], { mix: true, accounts: new Set(['eu']) }).ok).toBe(true);
  });

  it('a config moved into accounts: the same pipeline at <destination>/<account> is the pipeline the target holds', () => {
    const single = manifest('r1', { location: 'local directory /out' });
    const moved = manifest('r2', { account: 'acme', location: 'local directory /out/acme' });
    const plan = planPipelines([held(single)], [moved], { mix: false, accounts: new Set(['acme']) });
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.statements.get('r2')?.sql).toMatch(/^UPDATE/);
    expect(plan.statements.get('r2')?.params.slice(-2)).toEqual(['acme', 'local directory /out/acme']);
    // Another folder, or another account's name, is another destination.
    for (const location of ['local directory /elsewhere/acme', 'local directory /out/acme/deeper']) {
      expect(
        planPipelines([held(single)], [{ ...moved, location }], { mix: false, accounts: new Set(['acme']) }).ok,
      ).toBe(false);
    }
    const s3 = (location: string, account?: string) => manifest('r', { location, account });
    expect(
      planPipelines([held(s3('s3://b/helpdesk/'))], [s3('s3://b/helpdesk/acme/', 'acme')], { mix: false }).ok,
    ).toBe(true);
  });

  it('the account stored rows get when evolve adds _account: the one the target’s pipelines record, else the loaded output’s', () => {
    const of = (m: Manifest) => accountOfManifest(m);
    expect(accountBackfill([held(manifest('r1'))], [globex('r2')], of)).toEqual({ account: 'acme' });
    expect(accountBackfill([], [globex('r2'), globex('r3')], of)).toEqual({ account: 'globex' });
    expect(accountBackfill([held(manifest('r1')), held(globex('r0'), 2)], [], of)).toEqual({
      unknown: 'the target holds the pipelines of accounts acme, globex',
    });
    expect(accountBackfill([], [globex('r2'), acme('r3')], of)).toMatchObject({
      unknown: expect.stringContaining('globex, acme'),
    });
  });
});
