import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Row, readTables, routeRequests, type SyncEnv, startSyncEnv } from './support.js';

let env: SyncEnv;
beforeAll(async () => {
  env = await startSyncEnv({ seed: 23, conversations: 20 });
});
afterAll(async () => {
  await env?.close();
});

const meRequests = () => routeRequests(env.sandbox, 'GET /v1/me');

describe('the account table against the sandbox over HTTP', () => {
  it('holds what GET /me answers, read once per run with the manifest’s source identity', async () => {
    const me = (await api(env.sandbox, 'GET', '/me')).data as Row;
    const organization = me.organization as Row;
    const before = meRequests();
    const { summary, manifestKey } = await env.sync();
    expect(meRequests() - before, 'one GET /me serves the source identity and the account stream').toBe(1);
    expect(summary.tables.account).toEqual({ rows: 1, tombstones: 0, rejected: 0 });

    const [row, ...more] = readTables(env.outDir).account ?? [];
    expect(more).toEqual([]);
    expect(row).toMatchObject({
      slug: organization.slug,
      company: organization.company,
      user_id: me.id,
      user_name: me.name,
      user_email: me.email,
      user_role: me.role,
      _deleted: false,
    });
    // Nothing of /me is dropped: what has no column is in _extra, the organization's other fields under its name.
    const { slug, company, ...otherOrganization } = organization;
    const extra = row?._extra as Row;
    expect(extra.organization).toEqual(otherOrganization);
    expect(extra.badge_counts).toEqual(me.badge_counts);
    const manifest = JSON.parse(readFileSync(join(env.outDir, manifestKey), 'utf8')) as { source: Row };
    expect(manifest.source.organization).toEqual({ slug, company });
  });

  it('a second run with nothing changed reads GET /me once and writes no account row', async () => {
    const before = meRequests();
    const { summary } = await env.sync();
    expect(meRequests() - before).toBe(1);
    expect(summary.tables.account).toEqual({ rows: 0, tombstones: 0, rejected: 0 });
    expect(summary.completeness.find((f) => f.stream === 'account')).toMatchObject({ expected: 1, live: 1 });
  });
});
