import { beforeEach, describe, expect, it } from 'vitest';
import { parseThreadState, type ThreadState } from '../../../src/streams/conversations/thread-state.js';
import { SCOPES } from '../../../src/streams/scopes.js';
import { FakeHelpdesk } from './fake-helpdesk.js';
import { FakeStore, idsOf } from './fake-output.js';
import { HelpdeskWorld } from './helpdesk-world.js';
import { syncOnce } from './sync-harness.js';

const confirmations = (api: FakeHelpdesk, from: number) =>
  api.requests.slice(from).filter((r) => /^GET \/conversation\/[^/]+$/.test(r));

describe('deletions', () => {
  let api: FakeHelpdesk;
  let world: HelpdeskWorld;
  let store: FakeStore;

  beforeEach(async () => {
    api = new FakeHelpdesk();
    world = new HelpdeskWorld(api);
    world.seed({ conversations: 250 });
    store = new FakeStore();
    await syncOnce(api, store);
  });

  it('a conversation missing from a complete listing is confirmed with GET /conversation/{id}, then tombstoned with its thread rows', async () => {
    const gone = world.conversationIds()[120] as string;
    const thread = parseThreadState(store.state.get(SCOPES.thread)?.get(gone)) as ThreadState;
    world.forceDelete(gone);
    const { output, requestsBefore } = await syncOnce(api, store);
    expect(confirmations(api, requestsBefore)).toEqual([`GET /conversation/${gone}`]);
    expect(idsOf(store, output.runId, 'conversations')).toEqual({ live: [], deleted: [gone] });
    expect(idsOf(store, output.runId, 'messages').deleted).toEqual(Object.keys(thread.m).sort());
    expect(idsOf(store, output.runId, 'thread_events').deleted).toEqual(Object.keys(thread.e).sort());
    expect(idsOf(store, output.runId, 'attachments').deleted).toEqual(Object.keys(thread.a).sort());
    expect(store.state.get(SCOPES.conversations)?.has(gone)).toBe(false);
    expect(store.state.get(SCOPES.thread)?.has(gone)).toBe(false);
    expect(store.state.get(SCOPES.threadAt)?.has(gone)).toBe(false);
    // Gone from state: the next run neither asks again nor tombstones again.
    const next = await syncOnce(api, store);
    expect(confirmations(api, next.requestsBefore)).toEqual([]);
    expect(store.rowsOf(next.output.runId, 'conversations')).toEqual([]);
  });

  it('a conversation shifted out of the listing by a deletion mid-scan is found, not tombstoned', async () => {
    const ids = world.conversationIds();
    const deletedMidScan = ids[10] as string;
    const shifted = ids[100] as string; // first of page 2: moves to page 1 once an earlier row is gone
    api.beforePage = (page) => {
      if (page === 2) world.forceDelete(deletedMidScan);
    };
    const { output, requestsBefore } = await syncOnce(api, store);
    // Page 1 had already listed the deleted one; the shifted one is the only suspect, and it exists.
    expect(confirmations(api, requestsBefore)).toEqual([`GET /conversation/${shifted}`]);
    expect(store.rowsOf(output.runId, 'conversations')).toEqual([]);
    expect(store.rowsOf(output.runId, 'messages')).toEqual([]);
    expect(api.requests.slice(requestsBefore)).not.toContain(`GET /conversation/${shifted}/messages`);
    expect(store.state.get(SCOPES.conversations)?.has(shifted)).toBe(true);
    expect(store.state.get(SCOPES.thread)?.has(shifted)).toBe(true);
    // The next, undisturbed listing misses the deleted one: confirmed and tombstoned then.
    api.beforePage = undefined;
    const next = await syncOnce(api, store);
    expect(confirmations(api, next.requestsBefore)).toEqual([`GET /conversation/${deletedMidScan}`]);
    expect(idsOf(store, next.output.runId, 'conversations')).toEqual({ live: [], deleted: [deletedMidScan] });
  });

  it('a listing that did not complete detects no deletion', async () => {
    const gone = world.conversationIds()[5] as string;
    world.forceDelete(gone);
    api.beforePage = (page) => {
      if (page === 3) throw Object.assign(new Error('boom'), { status: 500 });
    };
    const { summary } = await syncOnce(api, store, { streams: ['conversations'] });
    expect(summary.status).toBe('partial');
    expect(summary.failed_streams).toEqual([{ stream: 'conversations', code: 'API_SERVER', message: 'boom' }]);
    expect(api.requests.filter((r) => r === `GET /conversation/${gone}`)).toEqual([]);
    expect(store.state.get(SCOPES.conversations)?.has(gone)).toBe(true);
  });

  it('a thread that answers 404 is confirmed: gone → tombstones; still there → kept, retried next run, warned', async () => {
    const [vanishing, odd] = world.conversationIds().slice(3, 5) as [string, string];
    world.reply(vanishing);
    world.reply(odd);
    const realThreads = api.listThreadEvents.bind(api);
    api.listThreadEvents = async (id, options) => {
      if (id === vanishing) world.forceDelete(vanishing);
      if (id === odd) return null;
      return realThreads(id, options);
    };
    const { output, summary } = await syncOnce(api, store);
    expect(idsOf(store, output.runId, 'conversations')).toEqual({ live: [odd], deleted: [vanishing] });
    expect(store.state.get(SCOPES.thread)?.has(vanishing)).toBe(false);
    expect(store.state.get(SCOPES.threadAt)?.has(vanishing)).toBe(false);
    // Still there: its thread state stays at the old fingerprint, so the next run asks again.
    expect(store.state.get(SCOPES.thread)?.get(odd)).toBeDefined();
    expect(store.state.get(SCOPES.threadAt)?.get(odd)).toBeDefined();
    expect(store.state.get(SCOPES.threadAt)?.get(odd)).not.toBe(store.state.get(SCOPES.conversations)?.get(odd));
    // Deleting `vanishing` mid-scan shifted the later pages by one: the conversation
    // skipped by the shift was confirmed alive by its view, kept, and said so.
    expect(summary.warnings.map((w) => w.code)).toEqual(['THREAD_NOT_FOUND', 'CONVERSATION_NOT_LISTED']);
  });

  it('dimension lists tombstone what disappeared and emit only what changed', async () => {
    api.inboxes.push({ id: 'inbox-3', name: 'Third' });
    api.holidays = [];
    api.tags.set('inbox-1', [{ id: 'tag-1', name: 'renamed', color: '#112233' }]);
    api.tags.set('inbox-2', []);
    const { output } = await syncOnce(api, store, { streams: ['inboxes', 'holidays', 'tags', 'business_hours'] });
    expect(idsOf(store, output.runId, 'inboxes')).toEqual({ live: ['inbox-3'], deleted: [] });
    expect(idsOf(store, output.runId, 'holidays')).toEqual({ live: [], deleted: ['hol-1'] });
    expect(idsOf(store, output.runId, 'tags')).toEqual({ live: ['tag-1'], deleted: ['tag-2'] });
    expect(store.rowsOf(output.runId, 'tags')[0]?.record).toMatchObject({ inbox_id: 'inbox-1', name: 'renamed' });
    expect(store.rowsOf(output.runId, 'business_hours')).toEqual([]);
  });
});
