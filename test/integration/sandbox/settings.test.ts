import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call, findConversation } from './sandbox-client.js';

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await startSandbox({ seed: 12, conversations: 200 });
});
afterAll(() => sb.close());

describe('tags settings', () => {
  it('PUT validates name (required, at most 64) and color (#RRGGBB), and rejects a duplicate name', async () => {
    const inbox = (await call(sb, 'GET', '/inboxes')).body[0];
    const [tag, other] = (await call(sb, 'GET', `/inboxes/${inbox.id}/tags?per_page=100`)).body.data;
    const bad = await call(sb, 'PUT', `/settings/tags/${tag.id}`, { body: { name: 'x'.repeat(65), color: 'red' } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['color', 'name']);
    expect(
      (await call(sb, 'PUT', `/settings/tags/${tag.id}`, { body: { color: '#AABBCC' } })).body.errors,
    ).toHaveProperty('name');
    expect((await call(sb, 'PUT', `/settings/tags/${tag.id}`, { body: { name: other.name } })).status).toBe(422);
    const ok = await call(sb, 'PUT', `/settings/tags/${tag.id}`, { body: { name: 'y'.repeat(64), color: '#a1b2c3' } });
    expect(ok.status).toBe(200);
    const after = (await call(sb, 'GET', `/inboxes/${inbox.id}/tags?per_page=100`)).body.data;
    expect(after.find((t: { id: string }) => t.id === tag.id)).toEqual({
      id: tag.id,
      name: 'y'.repeat(64),
      color: '#A1B2C3',
    });
    // Any teammate may change tags.
    expect(
      (await call(sb, 'PUT', `/settings/tags/${tag.id}`, { token: 'sandbox-agent', body: { name: 'agent-tag' } }))
        .status,
    ).toBe(200);
  });

  it('DELETE removes the tag and its links from conversations', async () => {
    const s = findConversation(sb, (c) => c.tags.length > 0);
    const tagId = s.tags[0]!;
    expect((await call(sb, 'GET', `/conversation/${s.id}`)).body.data.tags).toContain(tagId);
    expect((await call(sb, 'DELETE', `/settings/tags/${tagId}`)).status).toBe(200);
    expect((await call(sb, 'GET', `/conversation/${s.id}`)).body.data.tags).not.toContain(tagId);
    expect((await call(sb, 'DELETE', `/settings/tags/${tagId}`)).status).toBe(404);
  });
});

describe('custom-field settings (PAT only)', () => {
  const path = (inbox: string, field: string) => `/inboxes/${inbox}/custom-fields/${field}`;

  it('keeps name and type immutable, limits the description to 250 characters, and checks default_value', async () => {
    const inbox = sb.store.inboxes(sb.store.world.organizations[0]!.id)[0]!;
    const fields = sb.store.customFields(inbox.id);
    const plan = fields.find((f) => f.type === 'dropdown')!;
    const seats = fields.find((f) => f.type === 'number')!;
    const renamed = await call(sb, 'PATCH', path(inbox.id, plan.id), { body: { name: 'Tier', type: 'text' } });
    expect(renamed.status).toBe(422);
    expect(Object.keys(renamed.body.errors).sort()).toEqual(['name', 'type']);
    const same = await call(sb, 'PATCH', path(inbox.id, plan.id), {
      body: { name: plan.name, type: plan.type, description: 'd'.repeat(250) },
    });
    expect(same.status).toBe(200);
    expect(same.body.data).toMatchObject({ id: plan.id, name: plan.name, description: 'd'.repeat(250) });
    expect(
      (await call(sb, 'PATCH', path(inbox.id, plan.id), { body: { description: 'd'.repeat(251) } })).body.errors,
    ).toHaveProperty('description');
    expect((await call(sb, 'PATCH', path(inbox.id, seats.id), { body: { default_value: 'ten' } })).status).toBe(422);
    expect(
      (await call(sb, 'PATCH', path(inbox.id, seats.id), { body: { options: [{ id: null, value: 'x' }] } })).status,
    ).toBe(422);
    const opts = await call(sb, 'PATCH', path(inbox.id, plan.id), {
      body: {
        options: [
          { id: null, value: 'Gold' },
          { id: plan.options[0]!.id, value: 'Starter' },
        ],
        default_value: 'Gold',
      },
    });
    expect(opts.status).toBe(200);
    expect(opts.body.data.options.map((o: { value: string }) => o.value)).toEqual([
      'Starter',
      'Pro',
      'Enterprise',
      'Gold',
    ]);
    expect(opts.body.data.default_value).toBe('Gold');
    expect((await call(sb, 'PATCH', path(inbox.id, plan.id), { body: { key: 'tier' } })).body.errors).toHaveProperty(
      'key',
    );
    expect((await call(sb, 'PATCH', path(inbox.id, plan.id), { token: 'sandbox-partner', body: {} })).status).toBe(403);
  });

  it('DELETE removes the field and its values from conversations', async () => {
    const s = findConversation(sb, (c) => 'order_number' in c.customFieldValues);
    const field = sb.store.customFields(s.inboxId).find((f) => f.key === 'order_number')!;
    expect((await call(sb, 'DELETE', path(s.inboxId, field.id))).status).toBe(200);
    expect((await call(sb, 'GET', `/conversation/${s.id}`)).body.data.custom_field_values).not.toHaveProperty(
      'order_number',
    );
    expect((await call(sb, 'DELETE', path(s.inboxId, field.id))).status).toBe(404);
  });
});

describe('teammates', () => {
  it('lists teammates and pending invitations as a plain array with the contract fields', async () => {
    const users = (await call(sb, 'GET', '/settings/users')).body;
    expect(Array.isArray(users)).toBe(true);
    expect(new Set(users.map((u: { status: string }) => u.status))).toEqual(new Set(['active', 'invited']));
    expect(new Set(users.map((u: { role: string }) => u.role))).toEqual(
      new Set(['Account Owner', 'Administrator', 'User']),
    );
    for (const u of users) {
      expect(Object.keys(u).sort()).toEqual(
        [
          'avatar',
          'email',
          'extra',
          'first_name',
          'id',
          'last_name',
          'name',
          'phone',
          'presence',
          'role',
          'status',
        ].sort(),
      );
      expect(u.extra).toHaveProperty('preferences');
    }
  });
});
