import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call, findConversation } from './sandbox-client.js';

let sb: RunningSandbox;
const T0 = '2026-11-20T10:00:00.000Z';
beforeAll(async () => {
  sb = await startSandbox({ seed: 10, conversations: 300, now: () => new Date(T0) });
});
afterAll(() => sb.close());

const view = async (id: string) => (await call(sb, 'GET', `/conversation/${id}`)).body.data;
const thread = async (id: string) => (await call(sb, 'GET', `/conversation/${id}/messages`)).body;
const lastType = async (id: string) => (await thread(id)).at(-1).event_type;

describe('conversation actions', () => {
  it('custom-fields: sets and clears values by key; unknown keys and wrong types are 422', async () => {
    const s = findConversation(sb, () => true);
    const res = await call(sb, 'PATCH', `/conversation/${s.id}/custom-fields`, {
      body: { order_number: 'ORD-1', plan: 'Pro', vip: true, seats: 12 },
    });
    expect(res.status).toBe(200);
    expect((await view(s.id)).custom_field_values).toEqual({
      order_number: 'ORD-1',
      plan: 'Pro',
      vip: true,
      seats: 12,
    });
    await call(sb, 'PATCH', `/conversation/${s.id}/custom-fields`, { body: { vip: null } });
    expect((await view(s.id)).custom_field_values).not.toHaveProperty('vip');
    const bad = await call(sb, 'PATCH', `/conversation/${s.id}/custom-fields`, {
      body: { plan: 'Gold', seats: 'many', nope: 1 },
    });
    expect(Object.keys(bad.body.errors).sort()).toEqual(['nope', 'plan', 'seats']);
    expect((await view(s.id)).updated_at).toBe(T0);
  });

  it('move: changes inbox_id with a moved event; same or foreign inbox is 422', async () => {
    const s = findConversation(sb, (c) => c.status === 'Active');
    const target = sb.store.inboxes(s.organizationId).find((b) => b.id !== s.inboxId)!;
    const from = s.inboxId;
    expect((await call(sb, 'POST', `/conversation/${s.id}/move`, { body: { inbox_id: target.id } })).status).toBe(200);
    const v = await view(s.id);
    expect(v.inbox_id).toBe(target.id);
    expect(v.intended_inbox_address_id).not.toBeNull();
    expect((await thread(s.id)).at(-1)).toMatchObject({
      event_type: 'moved',
      extra: { from_inbox_id: from, to_inbox_id: target.id },
    });
    expect((await call(sb, 'POST', `/conversation/${s.id}/move`, { body: { inbox_id: target.id } })).status).toBe(422);
    const foreignInbox = sb.store.inboxes(sb.store.world.organizations[1]!.id)[0]!.id;
    expect((await call(sb, 'POST', `/conversation/${s.id}/move`, { body: { inbox_id: foreignInbox } })).status).toBe(
      422,
    );
  });

  it('snooze: is_snoozed until snoozed_until passes; a past time or a missing type is 422', async () => {
    const s = findConversation(sb, (c) => c.status === 'Active');
    const until = '2026-11-21T10:00:00.000Z';
    expect((await call(sb, 'PUT', `/conversation/${s.id}/snooze`, { body: { snoozed_until: until } })).status).toBe(
      422,
    );
    const past = await call(sb, 'PUT', `/conversation/${s.id}/snooze`, {
      body: { snoozed_until: '2026-01-01T00:00:00Z', type: 'if_no_reply' },
    });
    expect(Object.keys(past.body.errors)).toEqual(['snoozed_until']);
    expect(
      (await call(sb, 'PUT', `/conversation/${s.id}/snooze`, { body: { snoozed_until: until, type: 'if_no_reply' } }))
        .status,
    ).toBe(200);
    expect((await view(s.id)).is_snoozed).toBe(true);
    expect((await thread(s.id)).at(-1)).toMatchObject({
      event_type: 'snoozed',
      extra: { snoozed_until: until, type: 'if_no_reply' },
    });
    sb.clock.advance(2 * 86_400_000);
    expect((await view(s.id)).is_snoozed).toBe(false);
    sb.clock.set(new Date(T0));
  });

  it('spam: marks is_spam with a spam event; the body takes no fields', async () => {
    const s = findConversation(sb, (c) => !c.isSpam);
    expect((await call(sb, 'POST', `/conversation/${s.id}/spam`, { body: { reason: 'x' } })).status).toBe(422);
    expect((await call(sb, 'POST', `/conversation/${s.id}/spam`)).status).toBe(200);
    const v = await view(s.id);
    expect([v.is_spam, v.active]).toEqual([true, false]);
    expect(await lastType(s.id)).toBe('spam');
  });

  it('merge: moves the sources’ thread events into the target and removes the sources (404 afterwards)', async () => {
    const target = findConversation(sb, (c) => c.status === 'Active' && !c.isSpam);
    const sources = [findConversation(sb, (c) => c.id !== target.id && c.events.some((e) => e.event_type === 'note'))];
    sources.push(findConversation(sb, (c) => c.id !== target.id && c.id !== sources[0]!.id));
    const sourceEvents = await Promise.all(sources.map((s) => thread(s.id)));
    const before = await view(target.id);
    const withoutNotes = sourceEvents.flat().filter((e: { event_type: string }) => e.event_type !== 'note');
    const res = await call(sb, 'POST', `/conversation/${target.id}/merge`, {
      body: { mergeable_conversation_ids: sources.map((s) => s.id), include_notes: false, include_merge_summary: true },
    });
    expect(res.status).toBe(200);
    for (const s of sources) expect((await call(sb, 'GET', `/conversation/${s.id}`)).status).toBe(404);
    const events = await thread(target.id);
    const ids = new Set(events.map((e: { event: { id: string } | null }) => e.event?.id).filter(Boolean));
    for (const e of withoutNotes) if (e.event) expect(ids.has(e.event.id)).toBe(true);
    for (const e of sourceEvents.flat()) if (e.event_type === 'note') expect(ids.has(e.event.id)).toBe(false);
    const merged = events.find((e: { event_type: string }) => e.event_type === 'merged');
    expect(merged.extra.merged_conversation_ids).toEqual(sources.map((s) => s.id));
    const after = await view(target.id);
    const messageEvents = events.filter((e: { event: unknown }) => e.event !== null);
    expect(after.messages_count).toBe(messageEvents.length);
    expect(after.messages_count).toBeGreaterThan(before.messages_count);
    expect(after.last_message.id).toBe(messageEvents.at(-1).event.id);
    const again = await call(sb, 'POST', `/conversation/${target.id}/merge`, {
      body: { mergeable_conversation_ids: [target.id] },
    });
    expect(Object.keys(again.body.errors)).toEqual(['mergeable_conversation_ids']);
  });
});

describe('POST /inboxes/:inbox_id/batch/update', () => {
  it('updates every listed conversation; 400 "Nothing to update"; 409 for an unreachable status, all or nothing', async () => {
    const inbox = sb.store.inboxes(sb.store.world.organizations[0]!.id)[0]!;
    const live = [];
    for (let i = sb.store.table.count - 1; i >= 0 && live.length < 40; i--) {
      const s = sb.store.conversations.get(i);
      if (sb.store.conversations.exists(i) && s.inboxId === inbox.id && s.deletedAt === null) live.push(s);
    }
    const active = live
      .filter((s) => s.status === 'Active')
      .slice(0, 2)
      .map((s) => s.id);
    const closed = live.find((s) => s.status === 'Closed')!.id;
    const path = `/inboxes/${inbox.id}/batch/update`;
    const nothing = await call(sb, 'POST', path, { body: { conversations: active } });
    expect([nothing.status, nothing.body]).toEqual([400, { message: 'Nothing to update' }]);
    const blocked = await call(sb, 'POST', path, { body: { conversations: [...active, closed], status: 'Pending' } });
    expect(blocked.status).toBe(409);
    for (const id of active) expect((await view(id)).status).toBe('Active');
    const ok = await call(sb, 'POST', path, { body: { conversations: active, status: 'Pending', priority: 'High' } });
    expect(ok.status).toBe(200);
    for (const id of active)
      expect(await view(id)).toMatchObject({ status: 'Pending', priority: 'High', updated_at: T0 });
    const other = sb.store.inboxes(inbox.organizationId)[1]!.id;
    const wrongInbox = await call(sb, 'POST', `/inboxes/${other}/batch/update`, {
      body: { conversations: active, status: 'Active' },
    });
    expect(Object.keys(wrongInbox.body.errors)).toEqual(['conversations']);
    const unknown = await call(sb, 'POST', path, { body: { conversations: active, colour: 'red' } });
    expect(unknown.body.errors).toEqual({ colour: ['The field is not recognized.'] });
  });
});
