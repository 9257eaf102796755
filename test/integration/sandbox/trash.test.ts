import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call, findConversation } from './sandbox-client.js';

const DAY = 86_400_000;
let sb: RunningSandbox;
beforeAll(async () => {
  sb = await startSandbox({ seed: 8, conversations: 200, now: () => new Date('2026-11-20T10:00:00Z') });
});
afterAll(() => sb.close());

async function searchIds(): Promise<Map<string, { deleted_at: string | null }>> {
  const res = await call(sb, 'POST', '/search?per_page=100', {});
  const pages = res.body.data.conversations.meta.last_page;
  const items = [...res.body.data.conversations.data];
  for (let p = 2; p <= pages; p++)
    items.push(...(await call(sb, 'POST', `/search?per_page=100&page=${p}`)).body.data.conversations.data);
  return new Map(items.map((c: { id: string; deleted_at: string | null }) => [c.id, c]));
}

describe('conversation trash lifecycle', () => {
  it('trash → still readable with deleted_at and a trashed event; writes refused; restore brings it back', async () => {
    const s = findConversation(sb, (c) => c.status !== 'Closed');
    const trash = await call(sb, 'DELETE', `/conversation/${s.id}`);
    expect([trash.status, typeof trash.body.message]).toEqual([200, 'string']);
    const view = (await call(sb, 'GET', `/conversation/${s.id}`)).body.data;
    expect(view.deleted_at).toBe('2026-11-20T10:00:00.000Z');
    expect(view.updated_at).toBe('2026-11-20T10:00:00.000Z');
    const events = (await call(sb, 'GET', `/conversation/${s.id}/messages`)).body;
    expect(events[events.length - 1]).toMatchObject({ event_type: 'trashed', event: null, actor: { type: 'user' } });
    expect((await searchIds()).get(s.id)?.deleted_at).toBe('2026-11-20T10:00:00.000Z');
    expect((await call(sb, 'PATCH', `/conversation/${s.id}`, { body: { subject: 'x' } })).status).toBe(409);
    expect((await call(sb, 'DELETE', `/conversation/${s.id}`)).status).toBe(409);
    const inbox = (await call(sb, 'GET', '/inboxes')).body.find((b: { id: string }) => b.id === s.inboxId);
    expect(inbox.folder_counts.trash).toBe(1);

    sb.clock.advance(DAY);
    const restore = await call(sb, 'PATCH', `/conversation/${s.id}/restore`);
    expect(restore.status).toBe(200);
    const back = (await call(sb, 'GET', `/conversation/${s.id}`)).body.data;
    expect(back.deleted_at).toBeNull();
    expect(back.updated_at).toBe('2026-11-21T10:00:00.000Z');
    // Restoring a live conversation: 404, like force-deleting one.
    expect((await call(sb, 'PATCH', `/conversation/${s.id}/restore`)).status).toBe(404);
  });

  it('force-delete: 404 on a live conversation; on a trashed one destroys it and all it carries', async () => {
    const s = findConversation(sb, (c) => c.events.some((e) => (e.event?.attachments.length ?? 0) > 0));
    const contactId = sb.store.contacts.get(s.contactIndex).id;
    const countBefore = sb.store.contacts.conversationsCount(s.contactIndex);
    const live = await call(sb, 'DELETE', `/conversation/${s.id}/force-delete`);
    expect([live.status, live.body]).toEqual([404, { message: 'Not found.' }]);
    const messageId = s.events.find((e) => e.event)!.event!.id;
    expect((await call(sb, 'DELETE', `/conversation/${s.id}`)).status).toBe(200);
    expect((await call(sb, 'DELETE', `/conversation/${s.id}/force-delete`)).status).toBe(200);
    expect((await call(sb, 'GET', `/conversation/${s.id}`)).status).toBe(404);
    expect((await call(sb, 'GET', `/conversation/${s.id}/messages`)).status).toBe(404);
    expect((await call(sb, 'GET', `/conversation/${s.id}/messages?event_id=${messageId}`)).status).toBe(404);
    expect((await call(sb, 'PATCH', `/conversation/${s.id}/restore`)).status).toBe(404);
    expect((await searchIds()).has(s.id)).toBe(false);
    expect(sb.store.contacts.conversationsCount(s.contactIndex)).toBe(countBefore - 1);
    const other = findConversation(sb, (c) => c.contactIndex === s.contactIndex);
    expect((await call(sb, 'GET', `/conversation/${other.id}`)).body.data.contact).toMatchObject({
      id: contactId,
      conversations_count: countBefore - 1,
    });
  });

  it('purges a trashed conversation once the trash lifetime has passed, not before', async () => {
    const s = findConversation(sb, () => true);
    expect((await call(sb, 'DELETE', `/conversation/${s.id}`)).status).toBe(200);
    sb.clock.advance(30 * DAY - 1000);
    expect((await call(sb, 'GET', `/conversation/${s.id}`)).status).toBe(200);
    expect((await call(sb, 'PATCH', `/conversation/${s.id}/restore`)).status).toBe(200);
    expect((await call(sb, 'DELETE', `/conversation/${s.id}`)).status).toBe(200);
    sb.clock.advance(30 * DAY);
    // The purge runs when the clock moves, before any request.
    expect(sb.store.findConversation(sb.store.world.organizations[0]!.id, s.id)).toBeUndefined();
    expect((await call(sb, 'GET', `/conversation/${s.id}`)).status).toBe(404);
    expect((await searchIds()).has(s.id)).toBe(false);
  });

  it('purges through POST /_sandbox/clock too', async () => {
    const s = findConversation(sb, () => true);
    expect((await call(sb, 'DELETE', `/conversation/${s.id}`)).status).toBe(200);
    const moved = await call(sb, 'POST', '/_sandbox/clock', { token: null, body: { advance_seconds: 31 * 86_400 } });
    expect(moved.body.purged).toBe(1);
    expect((await call(sb, 'GET', `/conversation/${s.id}`)).status).toBe(404);
  });
});
