import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call, findConversation } from './sandbox-client.js';

let sb: RunningSandbox;
const T0 = '2026-11-20T10:00:00.000Z';
beforeAll(async () => {
  sb = await startSandbox({ seed: 9, conversations: 300, now: () => new Date(T0) });
});
afterAll(() => sb.close());

const view = async (id: string) => (await call(sb, 'GET', `/conversation/${id}`)).body.data;
const thread = async (id: string) => (await call(sb, 'GET', `/conversation/${id}/messages`)).body;

describe('PATCH /conversation/:id semantics', () => {
  it('changes only the fields sent, records events, and moves updated_at to the sandbox clock', async () => {
    const s = findConversation(sb, (c) => c.status === 'Active' && c.assigneeId !== null && !c.isSpam);
    const before = await view(s.id);
    const eventsBefore = (await thread(s.id)).length;
    const res = await call(sb, 'PATCH', `/conversation/${s.id}`, { body: { status: 'Closed' } });
    expect([res.status, res.body]).toEqual([200, { message: 'Conversation updated.' }]);
    const after = await view(s.id);
    expect(after).toEqual({ ...before, status: 'Closed', updated_at: T0, closed_at: T0, active: after.active });
    const events = await thread(s.id);
    expect(events).toHaveLength(eventsBefore + 1);
    expect(events[events.length - 1]).toMatchObject({
      event_type: 'status_changed',
      event: null,
      extra: { from: 'Active', to: 'Closed' },
    });
    // messages_count and last_message do not move for a system event.
    expect(after.messages_count).toBe(before.messages_count);

    const users = (await call(sb, 'GET', '/settings/users')).body;
    const tags = (await call(sb, 'GET', `/inboxes/${s.inboxId}/tags?per_page=100`)).body.data;
    const assign = users.find((u: { id: string }) => u.id !== s.assigneeId).id;
    await call(sb, 'PATCH', `/conversation/${s.id}`, {
      body: { assign_to: assign, tags: [tags[0].id, tags[1].id], subject: 'Renamed' },
    });
    const v = await view(s.id);
    expect(v).toMatchObject({
      assignable_id: assign,
      assignable_type: 'user',
      updated_subject: 'Renamed',
      subject: before.subject,
    });
    expect(v.tags.sort()).toEqual([tags[0].id, tags[1].id].sort());
    expect(v.status).toBe('Closed');
    const last = (await thread(s.id)).slice(-2);
    expect(last.map((e: { event_type: string }) => e.event_type)).toEqual(['assigned', 'tagged']);
    await call(sb, 'PATCH', `/conversation/${s.id}`, { body: { assign_to: null } });
    expect((await view(s.id)).assignable_id).toBeNull();
  });

  it('answers 409 for a status not reachable (Closed → Pending) and 422 for an empty body or a foreign tag', async () => {
    const s = findConversation(sb, (c) => c.status === 'Closed');
    const res = await call(sb, 'PATCH', `/conversation/${s.id}`, { body: { status: 'Pending' } });
    expect(res.status).toBe(409);
    expect(typeof res.body.message).toBe('string');
    expect((await view(s.id)).status).toBe('Closed');
    expect((await call(sb, 'PATCH', `/conversation/${s.id}`, { body: {} })).status).toBe(422);
    const otherInbox = sb.store.inboxes(s.organizationId).find((b) => b.id !== s.inboxId)!;
    const foreignTag = sb.store.tags(otherInbox.id)[0]!.id;
    const tagRes = await call(sb, 'PATCH', `/conversation/${s.id}`, { body: { tags: [foreignTag] } });
    expect(Object.keys(tagRes.body.errors)).toEqual(['tags']);
  });
});

describe('thread writes', () => {
  it('note appends a note; reply sends the saved draft text and consumes the draft', async () => {
    const s = findConversation(sb, (c) => c.status === 'Active' && !c.isSpam);
    const before = await view(s.id);
    expect(
      (await call(sb, 'POST', `/conversation/${s.id}/note`, { body: { message: 'Check billing', mentioned_ids: [] } }))
        .status,
    ).toBe(200);
    const noReply = await call(sb, 'POST', `/conversation/${s.id}/reply`, { body: { status: 'Pending' } });
    expect(noReply.status).toBe(422);
    expect(Object.keys(noReply.body.errors)).toEqual(['draft']);
    const draft = await call(sb, 'POST', `/conversation/${s.id}/draft`, {
      body: { message: '<p>Hello there</p>', cc: ['a@b.example'] },
    });
    expect(draft.body.draft_id).toMatch(/^[0-9a-f-]{36}$/);
    const again = await call(sb, 'POST', `/conversation/${s.id}/draft`, {
      body: { message: '<p>Fixed it for you</p>' },
    });
    expect(again.body.draft_id).toBe(draft.body.draft_id);
    const noStatus = await call(sb, 'POST', `/conversation/${s.id}/reply`, { body: {} });
    expect(Object.keys(noStatus.body.errors)).toEqual(['status']);
    const reply = await call(sb, 'POST', `/conversation/${s.id}/reply`, {
      body: { status: 'Pending', action: 'send_and_next_active' },
    });
    expect(reply.status).toBe(200);
    const after = await view(s.id);
    expect(after.messages_count).toBe(before.messages_count + 2);
    expect(after.status).toBe('Pending');
    expect(after.excerpt).toBe('Fixed it for you');
    expect(after.last_message).toMatchObject({
      direction: 'outbound',
      html_body: '<p>Fixed it for you</p>',
      cc: ['a@b.example'],
    });
    expect(after.last_message_created_at).toBe(T0);
    expect(after.last_message_by).toBe('user');
    const events = await thread(s.id);
    const types = events.slice(-3).map((e: { event_type: string }) => e.event_type);
    expect(types).toEqual(['note', 'message', 'status_changed']);
    expect(events[events.length - 3].event).toMatchObject({ record_type: 'note', text_body: 'Check billing' });
    const one = await call(sb, 'GET', `/conversation/${s.id}/messages?event_id=${after.last_message.id}`);
    expect(one.body).toHaveLength(1);
    expect(one.body[0].event.id).toBe(after.last_message.id);
    // The draft was consumed.
    expect((await call(sb, 'POST', `/conversation/${s.id}/reply`, { body: { status: 'Pending' } })).status).toBe(422);
  });

  it('change-contact swaps the embedded contact and both conversation counts', async () => {
    const s = findConversation(sb, () => true);
    const fromIndex = s.contactIndex;
    const other = findConversation(sb, (c) => c.contactIndex !== fromIndex);
    const from = sb.store.contacts.conversationsCount(fromIndex);
    const to = sb.store.contacts.conversationsCount(other.contactIndex);
    const target = sb.store.contacts.get(other.contactIndex).id;
    expect(
      (await call(sb, 'PATCH', `/conversation/${s.id}/change-contact`, { body: { contact_id: target } })).status,
    ).toBe(200);
    const v = await view(s.id);
    expect(v.contact).toMatchObject({ id: target, conversations_count: to + 1 });
    expect(sb.store.contacts.conversationsCount(fromIndex)).toBe(from - 1);
    expect((await thread(s.id)).at(-1).event_type).toBe('contact_changed');
    const bad = await call(sb, 'PATCH', `/conversation/${s.id}/change-contact`, { body: { contact_id: 'nope' } });
    expect(Object.keys(bad.body.errors)).toEqual(['contact_id']);
  });

  it('PATCH /contacts changes the contact embedded in every conversation of that contact', async () => {
    const s = findConversation(sb, (c) => sb.store.contacts.conversationsCount(c.contactIndex) >= 2);
    const contactId = sb.store.contacts.get(s.contactIndex).id;
    const res = await call(sb, 'PATCH', `/contacts/${contactId}`, { body: { name: 'New Name', company: null } });
    expect(res.status).toBe(200);
    const all = (
      await call(sb, 'POST', '/search?per_page=100', { body: { query: sb.store.contacts.get(s.contactIndex).email } })
    ).body.data.conversations.data;
    const mine = all.filter((c: { contact: { id: string } }) => c.contact.id === contactId);
    expect(mine.length).toBe(sb.store.contacts.conversationsCount(s.contactIndex));
    for (const c of mine) expect(c.contact).toMatchObject({ name: 'New Name', company: null });
    expect((await call(sb, 'PATCH', `/contacts/${contactId}`, { body: { email: 'not-an-email' } })).status).toBe(422);
    expect((await call(sb, 'PATCH', `/contacts/${contactId}`, { body: { shoe_size: 9 } })).body.errors).toEqual({
      shoe_size: ['The field is not recognized.'],
    });
  });

  it('POST /contacts keeps only the email and answers {message, contact}; duplicates are 422', async () => {
    const res = await call(sb, 'POST', '/contacts', { body: { email: 'new.person@example.org', name: 'Ignored' } });
    expect(res.status).toBe(200);
    expect(res.body.message).toEqual(expect.any(String));
    expect(res.body.contact).toMatchObject({ email: 'new.person@example.org', name: null, conversations_count: 0 });
    expect(res.body.contact.id).toMatch(/^[0-9a-f-]{36}$/);
    const dup = await call(sb, 'POST', '/contacts', { body: { email: 'NEW.person@example.org' } });
    expect(Object.keys(dup.body.errors)).toEqual(['email']);
    const seeded = sb.store.contacts.get(0).email;
    expect((await call(sb, 'POST', '/contacts', { body: { email: seeded } })).status).toBe(422);
    expect((await call(sb, 'POST', '/contacts', { body: {} })).status).toBe(422);
  });
});
