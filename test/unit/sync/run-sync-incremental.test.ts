import { beforeEach, describe, expect, it } from 'vitest';
import { CATALOG } from '../../../src/catalog/catalog.js';
import { parseThreadState } from '../../../src/streams/conversations/thread-state.js';
import { SCOPES } from '../../../src/streams/scopes.js';
import { FakeHelpdesk } from './fake-helpdesk.js';
import { FakeStore, idsOf } from './fake-output.js';
import { HelpdeskWorld } from './helpdesk-world.js';
import { syncOnce, testConfig } from './sync-harness.js';

const CONVERSATIONS = 250;
const THREAD_TABLES = ['messages', 'thread_events', 'attachments'] as const;

describe('incremental sync', () => {
  let api: FakeHelpdesk;
  let world: HelpdeskWorld;
  let store: FakeStore;

  beforeEach(async () => {
    api = new FakeHelpdesk();
    world = new HelpdeskWorld(api);
    world.seed({ conversations: CONVERSATIONS, inboxes: 2 });
    store = new FakeStore();
    await syncOnce(api, store);
  });

  it('a second run with no change makes no thread request and writes no conversation, message or contact row', async () => {
    const { summary, output, requestsBefore } = await syncOnce(api, store);
    const made = api.requests.slice(requestsBefore);
    expect(made.filter((r) => r.endsWith('/messages'))).toEqual([]);
    expect(made.filter((r) => r.startsWith('GET /conversation/'))).toEqual([]);
    // ceil(conversations / 100) list pages + per inbox: tags (1) and reports (today + lookback 2 = 3) + one
    // request per list read whole (the dimension lists).
    const inboxes = 2;
    const lists = CATALOG.filter((d) => d.read.kind === 'list').length;
    expect(made.length).toBeLessThanOrEqual(Math.ceil(CONVERSATIONS / 100) + lists + inboxes * 4);
    expect(made.filter((r) => r.startsWith('POST /search'))).toHaveLength(3);
    expect(api.lastSort).toBe('oldest');
    for (const table of ['conversations', 'contacts', ...THREAD_TABLES] as const) {
      expect(store.rowsOf(output.runId, table), table).toEqual([]);
    }
    expect(summary.conversations_scanned).toBe(CONVERSATIONS);
    expect(summary.conversations_changed).toBe(0);
    expect(summary.messages_fetched).toBe(0);
  });

  it('after reply, note, status, tag, trash, restore, force-delete, merge and contact PATCH emits exactly the changed rows and tombstones', async () => {
    const ids = world.conversationIds();
    const [replied, noted, statused, tagged, trashed, restored, deleted, target, merged] = ids as string[];
    world.trash(restored as string);
    world.trash(deleted as string);
    await syncOnce(api, store);
    const threadStateOf = (id: string) =>
      parseThreadState(store.state.get(SCOPES.thread)?.get(id)) ?? { e: {}, m: {}, a: {} };
    const deletedState = threadStateOf(deleted as string);
    const mergedState = threadStateOf(merged as string);

    const replyId = world.reply(replied as string);
    const noteId = world.note(noted as string);
    world.setStatus(statused as string, 'Closed');
    world.tag(tagged as string, 'tag-1');
    world.trash(trashed as string);
    world.restore(restored as string);
    world.forceDelete(deleted as string);
    world.merge(target as string, merged as string);
    world.patchContact('contact-3', { name: 'Renamed' });
    const { output, requestsBefore } = await syncOnce(api, store);
    const run = output.runId;

    const changed = [replied, noted, statused, tagged, trashed, restored, target].sort();
    expect(idsOf(store, run, 'conversations')).toEqual({ live: changed, deleted: [deleted, merged].sort() });
    expect(idsOf(store, run, 'contacts')).toEqual({ live: ['contact-3'], deleted: [] });

    // Only the changed conversations' threads were requested, plus one confirmation per vanished one.
    const made = api.requests.slice(requestsBefore);
    expect(made.filter((r) => r.endsWith('/messages')).sort()).toEqual(
      changed.map((id) => `GET /conversation/${id}/messages`),
    );
    expect(made.filter((r) => /^GET \/conversation\/[^/]+$/.test(r)).sort()).toEqual(
      [deleted, merged].sort().map((id) => `GET /conversation/${id}`),
    );

    // Messages: the reply, the note, and the merged conversation's messages now under the target.
    const movedMessages = Object.keys(mergedState.m);
    expect(idsOf(store, run, 'messages')).toEqual({
      live: [replyId, noteId, ...movedMessages].sort(),
      deleted: Object.keys(deletedState.m).sort(),
    });
    const movedRows = store.rowsOf(run, 'messages').filter((r) => movedMessages.includes(String(r.record.id)));
    expect(movedRows.every((r) => r.record.conversation_id === target)).toBe(true);
    expect(idsOf(store, run, 'attachments')).toEqual({
      live: Object.keys(mergedState.a).sort(),
      deleted: Object.keys(deletedState.a).sort(),
    });

    // Thread events: one new event per changed conversation, the merged thread's events under the target;
    // tombstones for the deleted thread and for the merged one's system events (their key holds its id).
    const events = store.rowsOf(run, 'thread_events');
    const live = events.filter((r) => !r.deleted);
    const types = (id: string) => live.filter((r) => r.record.conversation_id === id).map((r) => r.record.event_type);
    expect(types(replied as string)).toEqual(['message']);
    expect(types(noted as string)).toEqual(['note']);
    expect(types(statused as string)).toEqual(['status_changed']);
    expect(types(tagged as string)).toEqual(['tagged']);
    expect(types(trashed as string)).toEqual(['trashed']);
    expect(types(restored as string)).toEqual(['restored']);
    expect(types(target as string)).toEqual(['merged', 'message', 'assigned']);
    expect(live).toHaveLength(6 + 3);
    const systemKeysOfMerged = Object.keys(mergedState.e).filter((k) => !movedMessages.includes(k));
    expect(
      events
        .filter((r) => r.deleted)
        .map((r) => String(r.record.id))
        .sort(),
    ).toEqual([...Object.keys(deletedState.e), ...systemKeysOfMerged].sort());

    // A trashed conversation is an ordinary changed row, with deleted_at set.
    const trashedRow = store.rowsOf(run, 'conversations').find((r) => r.record.id === trashed);
    expect(trashedRow?.deleted).toBe(false);
    expect(trashedRow?.record.deleted_at).toEqual(expect.any(String));

    // The next run is quiet again.
    const quiet = await syncOnce(api, store);
    expect(store.rowsOf(quiet.output.runId).filter((r) => r.table !== 'report_productivity_daily')).toEqual([]);
  });

  it('--full-refresh messages refetches every thread and writes every thread row, nothing else', async () => {
    const { output, summary } = await syncOnce(api, store, { fullRefresh: ['messages'] });
    expect(summary.messages_fetched).toBe(CONVERSATIONS);
    expect(store.rowsOf(output.runId, 'messages')).toHaveLength(CONVERSATIONS);
    expect(store.rowsOf(output.runId, 'thread_events')).toHaveLength(CONVERSATIONS * 2);
    expect(store.rowsOf(output.runId, 'conversations')).toEqual([]);
    expect(summary.full_refresh).toEqual(['messages']);
  });

  it('--full-refresh conversations still tombstones what disappeared', async () => {
    const gone = world.conversationIds()[7] as string;
    world.forceDelete(gone);
    const { output } = await syncOnce(api, store, { fullRefresh: ['conversations'] });
    const ids = idsOf(store, output.runId, 'conversations');
    expect(ids.live).toHaveLength(CONVERSATIONS - 1);
    expect(ids.deleted).toEqual([gone]);
  });

  it('with only messages selected the list is still scanned but no conversation or contact row is written', async () => {
    const fresh = new FakeStore();
    const { output, summary } = await syncOnce(api, fresh, { streams: ['messages'] });
    expect(summary.conversations_scanned).toBe(CONVERSATIONS);
    expect(store.rowsOf(output.runId, 'conversations')).toEqual([]);
    expect(fresh.rowsOf(output.runId, 'conversations')).toEqual([]);
    expect(fresh.rowsOf(output.runId, 'contacts')).toEqual([]);
    expect(fresh.rowsOf(output.runId, 'messages')).toHaveLength(CONVERSATIONS);
    expect(fresh.state.get(SCOPES.conversations)).toBeUndefined();
  });

  it('reads GET /conversations/mine, oldest first, when the config says so', async () => {
    const config = testConfig({
      source: { base_url: 'http://127.0.0.1:1/v1', token: 'test-token-123', conversations_endpoint: 'mine' },
    });
    const { requestsBefore } = await syncOnce(api, store, { config, streams: ['conversations'] });
    const made = api.requests.slice(requestsBefore);
    expect(made).toEqual([
      'GET /conversations/mine page=1',
      'GET /conversations/mine page=2',
      'GET /conversations/mine page=3',
    ]);
    expect(api.lastSort).toBe('oldest');
  });
});
