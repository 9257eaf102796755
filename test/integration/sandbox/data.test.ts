import { afterAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call } from './sandbox-client.js';

const running: RunningSandbox[] = [];
async function start(options: Parameters<typeof startSandbox>[0]) {
  const sb = await startSandbox(options);
  running.push(sb);
  return sb;
}
afterAll(async () => {
  await Promise.all(running.map((sb) => sb.close()));
});

const CONVERSATION_FIELDS = [
  'id',
  'inbox_id',
  'ticket_id',
  'has_attachment',
  'has_inline_attachment',
  'is_draft',
  'is_scheduled',
  'is_snoozed',
  'active',
  'subject',
  'updated_subject',
  'status',
  'is_spam',
  'priority',
  'assignable_type',
  'assignable_id',
  'created_at',
  'updated_at',
  'deleted_at',
  'closed_at',
  'excerpt',
  'messages_count',
  'last_message_created_at',
  'intended_inbox_address_id',
  'agents',
  'contact',
  'last_message',
  'custom_field_values',
  'viewer_id',
  'viewed_at',
  'last_message_by',
];
const MESSAGE_FIELDS = [
  'id',
  'cc',
  'bcc',
  'record_type',
  'status',
  'direction',
  'viewed_at',
  'created_at',
  'text_body',
  'excerpt',
  'html_body',
  'extra',
  'is_clipped',
  'intended_inbox_address_id',
];

async function snapshot(sb: RunningSandbox) {
  const page = (await call(sb, 'POST', '/search?per_page=30', {})).body.data.conversations;
  const threads = [];
  for (const c of page.data.slice(0, 10)) threads.push((await call(sb, 'GET', `/conversation/${c.id}/messages`)).body);
  const strip = (items: Array<{ contact: unknown }>) => JSON.stringify(items);
  return {
    list: strip(page.data),
    threads: JSON.stringify(threads),
    inboxes: JSON.stringify((await call(sb, 'GET', '/inboxes')).body),
  };
}

describe('seeded data', () => {
  it('is the same for the same seed and different for another seed', async () => {
    const [a, b, c] = await Promise.all([
      start({ seed: 21, conversations: 500 }),
      start({ seed: 21, conversations: 500 }),
      start({ seed: 22, conversations: 500 }),
    ]);
    const [sa, sb2, sc] = [await snapshot(a), await snapshot(b), await snapshot(c)];
    expect(sa).toEqual(sb2);
    expect(sa.list).not.toEqual(sc.list);
    expect(sa.threads).not.toEqual(sc.threads);
  });

  it('serves list items with exactly the Conversation table fields, consistent with their threads', async () => {
    const sb = await start({ seed: 23, conversations: 400 });
    const items = (await call(sb, 'POST', '/search?per_page=100', {})).body.data.conversations.data;
    let attachments = 0;
    const kinds = new Set<string>();
    const contacts = new Map<string, number>();
    for (const c of items.slice(0, 60)) {
      expect(Object.keys(c).sort()).toEqual([...CONVERSATION_FIELDS].sort());
      expect(Object.keys(c.last_message).sort()).toEqual([...MESSAGE_FIELDS].sort());
      const events = (await call(sb, 'GET', `/conversation/${c.id}/messages`)).body;
      for (const e of events) {
        kinds.add(e.event_type);
        expect(Object.keys(e).sort()).toEqual(['actor', 'event', 'event_type', 'extra']);
        if (e.event) attachments += e.event.attachments.length;
      }
      const messages = events.filter((e: { event: unknown }) => e.event !== null);
      const last = messages.at(-1).event;
      expect(c.messages_count).toBe(messages.length);
      expect(c.last_message.id).toBe(last.id);
      expect(c.last_message_created_at).toBe(last.created_at);
      expect(c.excerpt).toBe(last.excerpt);
      expect(c.has_attachment).toBe(
        messages.some((e: { event: { attachments: unknown[] } }) => e.event.attachments.length > 0),
      );
      expect(events[0].actor.type).toBe('contact');
      expect(c.created_at).toBe(events[0].event.created_at);
      expect(c.updated_at >= c.last_message_created_at).toBe(true);
      if (c.status === 'Closed') expect(c.closed_at).not.toBeNull();
      contacts.set(c.contact.id, (contacts.get(c.contact.id) ?? 0) + 1);
    }
    expect(attachments).toBeGreaterThan(0);
    for (const kind of ['message', 'note', 'assigned', 'status_changed']) expect(kinds).toContain(kind);
    // Contacts are shared across conversations.
    expect(Math.max(...contacts.values())).toBeGreaterThan(1);
  });

  it('holds two organizations with their own inboxes, teammates, tags and conversations', async () => {
    const sb = await start({ seed: 24, conversations: 300 });
    const [org1, org2] = sb.store.world.organizations;
    expect(sb.store.inboxes(org1!.id).length).toBeGreaterThanOrEqual(3);
    expect(sb.store.inboxes(org2!.id).length).toBeGreaterThanOrEqual(1);
    expect(sb.store.users(org2!.id).length).toBeGreaterThan(0);
    const visible = (await call(sb, 'POST', '/search?per_page=1', {})).body.data.conversations.meta.total;
    let org2Count = 0;
    for (let i = 0; i < sb.store.table.count; i++)
      if (sb.store.conversations.get(i).organizationId === org2!.id) org2Count++;
    expect(org2Count).toBeGreaterThan(0);
    expect(visible).toBe(300 - org2Count);
    const inboxes = (await call(sb, 'GET', '/inboxes')).body;
    expect(inboxes.map((b: { id: string }) => b.id)).toEqual(sb.store.inboxes(org1!.id).map((b) => b.id));
    const counts = inboxes.reduce(
      (n: number, b: { folder_counts: Record<string, number> }) =>
        n + Object.values(b.folder_counts).reduce((x, y) => x + y, 0),
      0,
    );
    expect(counts).toBe(visible);
  });

  it('starts with 200 000 conversations and pages through them', async () => {
    const sb = await start({ seed: 25, conversations: 200_000, rateLimit: 10_000 });
    const first = (await call(sb, 'POST', '/search?per_page=100', {})).body.data.conversations;
    expect(first.meta.total).toBeGreaterThan(160_000);
    const deep = (await call(sb, 'POST', `/search?per_page=100&page=${first.meta.last_page}`, {})).body.data
      .conversations;
    expect(deep.data.length).toBeGreaterThan(0);
    expect(deep.links.next).toBeNull();
    const text = (await call(sb, 'POST', '/search?per_page=5', { body: { query: 'duplicate charge' } })).body.data
      .conversations;
    expect(text.meta.total).toBeGreaterThan(1000);
    const one = deep.data[0];
    expect((await call(sb, 'GET', `/conversation/${one.id}/messages`)).body.length).toBeGreaterThan(0);
    expect(process.memoryUsage().rss).toBeLessThan(500 * 1024 * 1024);
  });
});
