import { beforeEach, describe, expect, it } from 'vitest';
import { FakeHelpdesk } from './fake-helpdesk.js';
import { FakeStore } from './fake-output.js';
import { HelpdeskWorld } from './helpdesk-world.js';
import { syncOnce } from './sync-harness.js';

describe('the account stream (GET /me)', () => {
  let api: FakeHelpdesk;
  let store: FakeStore;

  beforeEach(() => {
    api = new FakeHelpdesk();
    new HelpdeskWorld(api).seed({ conversations: 10 });
    store = new FakeStore();
  });

  it('writes the account once, then only when /me answers something else; one request a run', async () => {
    const first = await syncOnce(api, store, { streams: ['account'] });
    expect(store.rowsOf(first.output.runId, 'account').map((r) => r.record)).toEqual([api.account]);
    expect(first.summary.completeness).toEqual([
      { stream: 'account', expected: 1, live: 1, explained: [], unexplained: 0 },
    ]);
    expect(api.requests.slice(first.requestsBefore)).toEqual(['GET /me']);

    const quiet = await syncOnce(api, store, { streams: ['account'] });
    expect(store.rowsOf(quiet.output.runId, 'account')).toEqual([]);
    expect(api.requests.slice(quiet.requestsBefore)).toEqual(['GET /me']);

    api.account = { ...api.account, name: 'Renamed User' };
    const renamed = await syncOnce(api, store, { streams: ['account'] });
    expect(store.rowsOf(renamed.output.runId, 'account').map((r) => r.record.name)).toEqual(['Renamed User']);
  });

  it('a token of another organization writes its account and tombstones the one before, by slug', async () => {
    await syncOnce(api, store, { streams: ['account'] });
    api.account = { id: 'other', organization: { company: 'Other Co', slug: 'other-co' } };
    const { output, summary } = await syncOnce(api, store, { streams: ['account'] });
    const rows = store.rowsOf(output.runId, 'account');
    expect(rows.filter((r) => !r.deleted).map((r) => r.record)).toEqual([api.account]);
    expect(rows.filter((r) => r.deleted).map((r) => r.record)).toEqual([{ slug: 'test-co' }]);
    expect(summary.tables.account).toEqual({ rows: 2, tombstones: 1, rejected: 0 });
  });
});
