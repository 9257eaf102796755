import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';

// The business-hours and holiday routes as mounted in the full sandbox: /v1 prefix,
// the sandbox's own auth hook (401), tokens, organizations, clock and stats.
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 7, conversations: 20, now: () => new Date('2026-11-20T10:00:00Z') });
});
afterAll(async () => {
  await sandbox.close();
});

async function call(method: string, path: string, token: string | undefined, body?: unknown) {
  const res = await fetch(`${sandbox.baseUrl}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe('business hours and holidays inside the sandbox', () => {
  it('answers 401 without a token and 403 to the partner token', async () => {
    expect(await call('GET', '/business-hours', undefined)).toEqual({
      status: 401,
      body: { message: 'Unauthenticated.' },
    });
    expect(await call('GET', '/holidays', 'sandbox-partner')).toEqual({
      status: 403,
      body: { message: 'This action requires a personal access token.' },
    });
  });

  it("serves organization 1's seed to the admin and agent tokens, and refuses agent writes", async () => {
    const admin = await call('GET', '/business-hours', 'sandbox-admin');
    const agent = await call('GET', '/business-hours', 'sandbox-agent');
    expect(admin.status).toBe(200);
    expect(agent.body).toEqual(admin.body);
    expect(admin.body.map((p: { name: string }) => p.name)).toEqual(['Always on', 'Support hours']);
    const write = await call('POST', '/holidays', 'sandbox-agent', {
      name: 'x',
      start_date: '2027-01-01',
      end_date: '2027-01-01',
    });
    expect(write).toEqual({ status: 403, body: { message: 'This action is unauthorized.' } });
  });

  it("covers only the caller's organization's inboxes and counts requests by route template", async () => {
    const [org1, org2] = sandbox.store.world.organizations;
    const own = sandbox.store.inboxes(org1!.id).map((i) => i.id);
    const foreign = sandbox.store.inboxes(org2!.id)[0]!.id;
    const refused = await call('POST', '/business-hours', 'sandbox-admin', {
      type: 'calendar_24_7',
      inbox_channels: [{ inbox_id: foreign, channel: 'email' }],
    });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['inbox_channels.0.inbox_id']);
    const created = await call('POST', '/business-hours', 'sandbox-admin', {
      type: 'calendar_24_7',
      inbox_channels: [{ inbox_id: own[own.length - 1], channel: 'email' }],
    });
    // The seed covers the first inbox's email and a livechat channel; the last inbox's email is free.
    expect(created.status).toBe(201);
    const del = await call('DELETE', `/business-hours/${created.body.data.id}`, 'sandbox-admin');
    expect(del.status).toBe(204);
    const stats = sandbox.stats();
    expect(stats.by_route['DELETE /v1/business-hours/:business_hour']).toEqual({ '204': 1 });
    expect(stats.by_route['POST /v1/business-hours']).toEqual({ '422': 1, '201': 1 });
  });

  it("derives holiday status from the sandbox clock in the organization's timezone", async () => {
    const list = await call('GET', '/holidays', 'sandbox-admin');
    expect(list.body.map((h: { status: string }) => h.status)).toEqual(['active', 'upcoming', 'past']);
    sandbox.clock.set(new Date('2026-11-23T10:00:00Z'));
    const later = await call('GET', '/holidays', 'sandbox-admin');
    expect(later.body.map((h: { status: string }) => h.status)).toEqual(['upcoming', 'past', 'past']);
  });
});

describe('hours timestamps', () => {
  it('are whole seconds, like every timestamp the sandbox stores', async () => {
    const own = await startSandbox({ seed: 7, conversations: 5, now: () => new Date('2026-11-20T10:00:00.123Z') });
    try {
      const res = await fetch(`${own.baseUrl}/holidays`, {
        method: 'POST',
        headers: { authorization: 'Bearer sandbox-admin', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Offsite', start_date: '2026-12-01', end_date: '2026-12-02' }),
      });
      expect(res.status).toBe(201);
      const { data } = (await res.json()) as { data: { created_at: string; updated_at: string } };
      expect(data.created_at).toBe('2026-11-20T10:00:00.000Z');
      expect(data.updated_at).toBe('2026-11-20T10:00:00.000Z');
    } finally {
      await own.close();
    }
  });
});
