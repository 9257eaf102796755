import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiObject } from '../../../../src/api/endpoints/types.js';
import type { StreamName } from '../../../../src/config/schema.js';
import { silentLogger } from '../../../../src/log.js';
import { conversationFingerprint } from '../../../../src/streams/conversations/conversation-fingerprints.js';
import { conversationScanStream } from '../../../../src/streams/conversations/conversation-scan-stream.js';
import { parseThreadState } from '../../../../src/streams/conversations/thread-state.js';
import { SCOPES } from '../../../../src/streams/scopes.js';
import type { StreamContext } from '../../../../src/streams/types.js';
import { streamSettingsOf } from '../../../../src/sync/stream-settings-of.js';
import { FakeClock } from '../../api/fake-clock.js';
import { FakeHelpdesk } from '../../sync/fake-helpdesk.js';
import { FakeStore, idsOf } from '../../sync/fake-output.js';
import { HelpdeskWorld } from '../../sync/helpdesk-world.js';
import { syncOnce, testConfig } from '../../sync/sync-harness.js';

const SCAN = ['conversations', 'contacts', 'messages'] as const;

describe('conversation scan', () => {
  let api: FakeHelpdesk;
  let world: HelpdeskWorld;
  let store: FakeStore;

  beforeEach(() => {
    api = new FakeHelpdesk();
    world = new HelpdeskWorld(api);
    world.seed({ conversations: 40, contacts: 4 });
    store = new FakeStore();
  });

  it('the conversation fingerprint ignores the embedded contact except its id', () => {
    const c = api.conversations.values().next().value as ApiObject;
    const renamed = { ...c, contact: { ...(c.contact as ApiObject), name: 'Other' } };
    expect(conversationFingerprint(renamed)).toBe(conversationFingerprint(c));
    expect(conversationFingerprint({ ...c, contact: { id: 'someone-else' } })).not.toBe(conversationFingerprint(c));
    expect(conversationFingerprint({ ...c, updated_at: '2030-01-01T00:00:00Z' })).not.toBe(conversationFingerprint(c));
  });

  it('reads the large per-thread maps key by key, only for conversations it fetches or deletes', async () => {
    await syncOnce(api, store);
    store.snapshotted.clear();
    const lookups: string[] = [];
    const reader = store.reader();
    const lookup = reader.lookup as NonNullable<typeof reader.lookup>;
    reader.lookup = (scope, key) => {
      lookups.push(`${scope} ${key}`);
      return lookup(scope, key);
    };
    const [changed, gone] = world.conversationIds() as [string, string];
    world.reply(changed);
    world.forceDelete(gone);
    const { output } = await syncOnce(api, store, { state: reader });
    expect(store.snapshotted.has(SCOPES.thread)).toBe(false);
    const threadLookups = lookups.filter((l) => l.startsWith(`${SCOPES.thread} `));
    expect(threadLookups.sort()).toEqual([`${SCOPES.thread} ${changed}`, `${SCOPES.thread} ${gone}`].sort());
    expect(idsOf(store, output.runId, 'messages').deleted).toHaveLength(1);
  });

  it('messages merged into a conversation new since the last run are not tombstoned with their old conversation', async () => {
    await syncOnce(api, store);
    const source = world.conversationIds()[2] as string;
    const sourceMessages = Object.keys(parseThreadState(store.state.get(SCOPES.thread)?.get(source))?.m ?? {});
    const target = world.createConversation('inbox-1', { id: 'contact-1' });
    world.merge(target, source);
    const { output } = await syncOnce(api, store);
    expect(idsOf(store, output.runId, 'conversations').deleted).toEqual([source]);
    const messages = idsOf(store, output.runId, 'messages');
    expect(messages.deleted).toEqual([]);
    expect(messages.live).toEqual(expect.arrayContaining(sourceMessages));
  });

  it('never loads a scope that grows with the account into memory when the reader can read by key', async () => {
    await syncOnce(api, store);
    world.forceDelete(world.conversationIds()[0] as string);
    store.snapshotted.clear();
    await syncOnce(api, store, { state: store.reader() });
    for (const scope of [SCOPES.conversations, SCOPES.threadAt, SCOPES.contacts, SCOPES.thread]) {
      expect(store.snapshotted.has(scope), scope).toBe(false);
    }
  });

  it('works as well with a reader that has no lookup', async () => {
    await syncOnce(api, store);
    const [changed] = world.conversationIds() as [string];
    world.reply(changed);
    const { output } = await syncOnce(api, store, { state: store.reader({ withLookup: false }) });
    expect(idsOf(store, output.runId, 'thread_events').live).toHaveLength(1);
  });

  it('writes a contact embedded in many conversations once per run, and again only when it changes', async () => {
    const first = await syncOnce(api, store, { streams: [...SCAN] });
    expect(idsOf(store, first.output.runId, 'contacts').live).toEqual([
      'contact-1',
      'contact-2',
      'contact-3',
      'contact-4',
    ]);
    world.patchContact('contact-2', { job_title: 'CTO' });
    const second = await syncOnce(api, store, { streams: [...SCAN] });
    expect(store.rowsOf(second.output.runId, 'contacts').map((r) => r.record)).toEqual([
      expect.objectContaining({ id: 'contact-2', job_title: 'CTO' }),
    ]);
    expect(api.requests.slice(second.requestsBefore).filter((r) => r.endsWith('/messages'))).toEqual([]);
  });

  it('a contact embedded in two versions is judged on its first-listed copy, so runs stay quiet', async () => {
    await syncOnce(api, store, { streams: [...SCAN] });
    const ids = world.conversationIds();
    const late = api.conversations.get(ids[37] as string) as ApiObject;
    late.contact = { ...(late.contact as ApiObject), name: 'Changed mid-scan' };
    const contactId = String((late.contact as ApiObject).id);
    const firstListed = ids.find((id) => idOfContact(api.conversations.get(id)) === contactId);
    const { output } = await syncOnce(api, store, { streams: ['contacts'] });
    // Written only if the changed copy is the first one listed; never twice in one run.
    expect(store.rowsOf(output.runId, 'contacts')).toHaveLength(firstListed === ids[37] ? 1 : 0);
    const next = await syncOnce(api, store, { streams: ['contacts'] });
    expect(store.rowsOf(next.output.runId, 'contacts')).toHaveLength(0);
  });

  it('a conversation listed twice with the same content is handled once; one without an id is rejected, not fatal', async () => {
    const ids = world.conversationIds();
    const real = api.searchConversations.bind(api);
    api.searchConversations = async function* (options) {
      for await (const item of real(options)) {
        yield item;
        if (item.id === ids[5]) {
          yield structuredClone(item);
          yield { subject: 'no id here' };
        }
      }
    };
    const { summary, output } = await syncOnce(api, store, { streams: [...SCAN] });
    expect(summary.messages_fetched).toBe(40);
    expect(store.rowsOf(output.runId, 'conversations').filter((r) => r.record.id === ids[5])).toHaveLength(1);
    expect(summary.tables.conversations).toEqual({ rows: 40, tombstones: 0, rejected: 1 });
    expect(summary.conversations_scanned).toBe(42);
  });

  it('pages that repeat the last item of the page before: each conversation processed once per run, repeats counted', async () => {
    const ids = world.conversationIds();
    const real = api.searchConversations.bind(api);
    api.searchConversations = async function* (options) {
      let n = 0;
      for await (const item of real(options)) {
        yield item;
        n += 1;
        // Every 10th item opens the next page again; the one after ids[19] comes back changed.
        if (n % 10 === 0) yield item.id === ids[19] ? { ...item, updated_at: '2030-01-01T00:00:00Z' } : item;
      }
    };
    const { summary, output } = await syncOnce(api, store, { streams: [...SCAN] });
    expect(summary.conversations_scanned).toBe(44);
    expect(summary.conversations_relisted).toBe(4);
    expect(summary.messages_fetched).toBe(40);
    const written = idsOf(store, output.runId, 'conversations').live;
    expect(new Set(written).size).toBe(written.length);
    expect(written).toHaveLength(40);
    const messages = idsOf(store, output.runId, 'messages').live;
    expect(new Set(messages).size).toBe(messages.length);
  });

  it('estimates the requests left from the last page the paginator reports, else from the last run', async () => {
    api.pageSize = 10;
    const run = async (lastPageKnown: boolean, selected: StreamName[] = ['conversations']) => {
      const remaining: Array<number | undefined> = [];
      const real = api.searchConversations.bind(api);
      const list: typeof api.searchConversations = (o) =>
        real({
          ...o,
          onPage: (p) =>
            o?.onPage?.(
              lastPageKnown
                ? p
                : { pagesRead: p.pagesRead, itemsRead: p.itemsRead, pageItems: p.pageItems, overlapping: 0 },
            ),
        });
      const ctx: StreamContext = {
        api: Object.assign(Object.create(api), { searchConversations: list }),
        state: store.reader(),
        fullRefresh: false,
        clock: new FakeClock(),
        log: silentLogger(),
        signal: new AbortController().signal,
        selected: new Set(selected),
        metrics: { count: () => undefined, remaining: (n) => remaining.push(n) },
      };
      for await (const emit of conversationScanStream(streamSettingsOf(testConfig())).run(ctx))
        if (emit.kind === 'batch') store.apply(emit.changes ?? []);
      return remaining;
    };
    // A first run with threads: every conversation listed so far needed its thread, so the
    // 40 not listed yet are expected to need theirs too.
    const withThreads = await run(true, ['conversations', 'messages']);
    expect(withThreads[0]).toBeGreaterThanOrEqual(38);
    expect(withThreads.at(-1)).toBe(0);
    store.state.clear();
    // Pages 1..4 of 10: after each item of page n, 4 - n pages are left.
    expect([...new Set(await run(true))]).toEqual([3, 2, 1, 0]);
    // No last page from the paginator: 40 conversations known from the first run, 100 per page.
    const guessed = await run(false);
    expect(guessed[0]).toBe(1);
    expect(guessed.at(-1)).toBe(0);
  });
});

function idOfContact(conversation: ApiObject | undefined): string | undefined {
  const contact = conversation?.contact as ApiObject | undefined;
  return contact ? String(contact.id) : undefined;
}
