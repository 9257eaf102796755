import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiObject } from '../../../src/api/endpoints/types.js';
import { FakeApiError, FakeHelpdesk } from './fake-helpdesk.js';
import { FakeStore } from './fake-output.js';
import { HelpdeskWorld } from './helpdesk-world.js';
import { syncOnce } from './sync-harness.js';

/** What the API layer throws once a read's retries are spent on a body it cannot read. */
const unreadable = () => new FakeApiError(200, 'API_BAD_RESPONSE');

async function* failing(): AsyncIterable<ApiObject> {
  yield* [];
  throw unreadable();
}

describe('lists whose answer stays unreadable skip only themselves', () => {
  let api: FakeHelpdesk;
  let store: FakeStore;

  beforeEach(() => {
    api = new FakeHelpdesk();
    new HelpdeskWorld(api).seed({ conversations: 5 });
    store = new FakeStore();
  });

  it('a dimension list: skipped with LIST_UNREADABLE, nothing tombstoned, no figure, the run succeeds', async () => {
    api.users = [{ id: 'u1', name: 'Ada' }];
    await syncOnce(api, store, { streams: ['users'] });
    const read = api.read.bind(api);
    api.read = (request, options) => (request.path === '/settings/users' ? failing() : read(request, options));
    const { summary, output } = await syncOnce(api, store, { streams: ['users', 'inboxes'] });
    expect(summary.status).toBe('succeeded');
    expect(summary.unreadable_skipped).toBe(1);
    expect(summary.warnings.map((w) => w.code)).toEqual(['LIST_UNREADABLE']);
    expect(summary.warnings[0]?.message).toContain('users: its list stayed unreadable after the retries');
    expect(summary.completeness.map((f) => f.stream)).toEqual(['inboxes']);
    expect(store.rowsOf(output.runId, 'users')).toEqual([]);
  });

  it('the tags of one inbox: the others are read, and no tag is tombstoned that run', async () => {
    await syncOnce(api, store, { streams: ['tags'] });
    const read = api.read.bind(api);
    api.read = (request, options) =>
      request.path === '/inboxes/{inbox_id}/tags' && request.params?.inbox_id === 'inbox-2'
        ? failing()
        : read(request, options);
    api.tags.set('inbox-1', []);
    const { summary, output } = await syncOnce(api, store, { streams: ['tags'] });
    expect(summary.status).toBe('succeeded');
    expect(summary.warnings.map((w) => w.message)).toEqual([
      expect.stringContaining('tags: the tags of inbox inbox-2 stayed unreadable'),
    ]);
    // tag-1 is gone from inbox-1, but with inbox-2 unread nothing may be called gone this run.
    expect(store.rowsOf(output.runId, 'tags').filter((r) => r.deleted)).toEqual([]);
    expect(summary.completeness.find((f) => f.stream === 'tags')).toBeUndefined();
  });

  it('the first page of the conversation listing: the listing ends, nothing is tombstoned, the run succeeds', async () => {
    await syncOnce(api, store, { streams: ['conversations'] });
    api.searchConversations = failing;
    const { summary, output } = await syncOnce(api, store, { streams: ['conversations', 'inboxes'] });
    expect(summary.status).toBe('succeeded');
    expect(summary.unreadable_skipped).toBe(1);
    expect(summary.warnings.map((w) => w.code)).toEqual(['PAGE_UNREADABLE']);
    expect(summary.warnings[0]?.message).toContain('the conversation listing stopped at page 1');
    expect(store.rowsOf(output.runId, 'conversations')).toEqual([]);
    expect(summary.completeness.map((f) => f.stream)).toEqual(['inboxes']);
  });
});
