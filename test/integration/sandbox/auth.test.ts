import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call, findConversation, foreign } from './sandbox-client.js';

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await startSandbox({ seed: 3, conversations: 300 });
});
afterAll(() => sb.close());

describe('sandbox authentication and authorization', () => {
  it('answers 401 {message: "Unauthenticated."} without a token or with an unknown one', async () => {
    for (const token of [null, 'nope', '']) {
      const res = await call(sb, 'GET', '/me', { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
    }
    const basic = await fetch(`${sb.baseUrl}/me`, { headers: { authorization: 'Basic sandbox-admin' } });
    expect(basic.status).toBe(401);
  });

  it('maps each token to its user of organization 1 on /me', async () => {
    const roles: Record<string, string> = {};
    for (const token of ['sandbox-admin', 'sandbox-agent', 'sandbox-partner']) {
      const res = await call(sb, 'GET', '/me', { token });
      expect(res.status).toBe(200);
      roles[token] = res.body.data.role;
      expect(res.body.data.organization).toMatchObject({ company: 'Acme Support GmbH', slug: 'acme' });
      expect(res.body.data.organization.timezone).toBe('Europe/Berlin');
      expect(res.body.data.organization.trash_lifetime_days).toBe(30);
      expect(res.body.data.badge_counts).toEqual(expect.objectContaining({ mine: expect.any(Number) }));
    }
    expect(roles).toEqual({
      'sandbox-admin': 'Account Owner',
      'sandbox-agent': 'User',
      'sandbox-partner': 'Administrator',
    });
  });

  it('needs scope users:read for the teammate list and view (403 for sandbox-agent)', async () => {
    const users = await call(sb, 'GET', '/settings/users', { token: 'sandbox-agent' });
    expect(users.status).toBe(403);
    expect(typeof users.body.message).toBe('string');
    const admin = await call(sb, 'GET', '/settings/users');
    expect(admin.status).toBe(200);
    const one = await call(sb, 'GET', `/settings/users/${admin.body[0].id}`, { token: 'sandbox-agent' });
    expect(one.status).toBe(403);
    expect((await call(sb, 'GET', `/settings/users/${admin.body[0].id}`)).body.data.id).toBe(admin.body[0].id);
  });

  it('rejects the partner token on PAT-only operations with 403 and accepts it elsewhere', async () => {
    const id = findConversation(sb, () => true).id;
    const message = 'This action requires a personal access token.';
    for (const [method, path] of [
      ['DELETE', `/conversation/${id}`],
      ['PATCH', `/conversation/${id}/restore`],
      ['DELETE', `/conversation/${id}/force-delete`],
      ['POST', `/conversation/${id}/merge`],
      ['PATCH', `/conversation/${id}/change-contact`],
      ['GET', '/business-hours'],
      ['GET', '/holidays'],
    ]) {
      const res = await call(sb, method!, path!, { token: 'sandbox-partner', body: method === 'GET' ? undefined : {} });
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 403, body: { message } });
    }
    expect((await call(sb, 'GET', `/conversation/${id}`, { token: 'sandbox-partner' })).status).toBe(200);
    expect((await call(sb, 'POST', '/search', { token: 'sandbox-partner' })).status).toBe(200);
    // Still there: the PAT-only DELETE above was refused before doing anything.
    expect((await call(sb, 'GET', `/conversation/${id}`)).body.data.deleted_at).toBeNull();
  });

  it('limits business-hours and holiday writes to administrators (403 for a User)', async () => {
    const holiday = { name: 'Team day', start_date: '2027-03-01', end_date: '2027-03-01' };
    const agent = await call(sb, 'POST', '/holidays', { token: 'sandbox-agent', body: holiday });
    expect(agent.status).toBe(403);
    expect((await call(sb, 'GET', '/holidays', { token: 'sandbox-agent' })).status).toBe(200);
    const admin = await call(sb, 'POST', '/holidays', { body: holiday });
    expect(admin.status).toBe(201);
  });

  it('answers the same 404 for an absent id and for an id of the other organization', async () => {
    const other = foreign(sb);
    const absent = '00000000-0000-4000-8000-000000000000';
    const pairs: Array<[string, (id: string) => string, string, unknown?]> = [
      ['GET', (id) => `/conversation/${id}`, other.conversationId],
      ['GET', (id) => `/conversation/${id}/messages`, other.conversationId],
      ['PATCH', (id) => `/conversation/${id}`, other.conversationId, { subject: 'x' }],
      ['GET', (id) => `/inboxes/${id}/tags`, other.inboxId],
      ['GET', (id) => `/settings/users/${id}`, other.userId],
      ['PUT', (id) => `/settings/tags/${id}`, other.tagId, { name: 'x' }],
      ['PATCH', (id) => `/contacts/${id}`, other.contactId, { name: 'x' }],
      ['GET', (id) => `/reports/${id}/productivity?start_date=2026-01-01&end_date=2026-01-02`, other.inboxId],
      ['PATCH', (id) => `/inboxes/${other.inboxId}/custom-fields/${id}`, other.customFieldId, { description: 'x' }],
    ];
    for (const [method, path, id, body] of pairs) {
      const foreignRes = await call(sb, method, path(id), { body });
      const absentRes = await call(sb, method, path(absent), { body });
      expect({ path: path('…'), status: foreignRes.status, body: foreignRes.body }).toEqual({
        path: path('…'),
        status: 404,
        body: absentRes.body,
      });
      expect(absentRes.status).toBe(404);
    }
    // The foreign conversation really exists: organization 2 has data of its own.
    expect(sb.store.findConversation(other.organizationId, other.conversationId)).toBeDefined();
  });
});
