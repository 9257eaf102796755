import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call } from './sandbox-client.js';

let sb: RunningSandbox;
let inboxId: string;
beforeAll(async () => {
  sb = await startSandbox({ seed: 13, conversations: 1500, rateLimit: 10_000 });
  inboxId = (await call(sb, 'GET', '/inboxes')).body[0].id;
});
afterAll(() => sb.close());

interface Item {
  id: string;
  inbox_id: string;
  created_at: string;
  closed_at: string | null;
  status: string;
  assignable_id: string | null;
  deleted_at: string | null;
}

async function allConversations(): Promise<Item[]> {
  const items: Item[] = [];
  for (let page = 1; ; page++) {
    const res = (
      await call(sb, 'POST', `/search?per_page=100&page=${page}&sort=oldest`, { body: { inbox_id: inboxId } })
    ).body;
    items.push(...res.data.conversations.data);
    if (!res.data.conversations.links.next) return items;
  }
}

/** What the report must say, derived only from what the other endpoints answer. */
async function expected(from: string, to: string) {
  const inWindow = (await allConversations()).filter(
    (c) => c.created_at >= from && c.created_at < to && c.deleted_at === null,
  );
  const responses = [];
  const resolutions = [];
  let one = 0;
  let multiple = 0;
  let replies = 0;
  for (const c of inWindow) {
    const events = (await call(sb, 'GET', `/conversation/${c.id}/messages`)).body;
    const out = events.filter((e: { event: { direction: string } | null }) => e.event?.direction === 'outbound');
    if (out.length > 0) {
      const messages = out.map((e: { event: { id: string; created_at: string } }) => ({
        id: e.event.id,
        created_at: e.event.created_at,
        conversation_id: c.id,
      }));
      responses.push({ id: c.id, created_at: c.created_at, messages });
    }
    if (c.status !== 'Closed' || !c.closed_at) continue;
    replies += out.length;
    if (out.length === 1) one++;
    if (out.length > 1) multiple++;
    const seconds = (Date.parse(c.closed_at) - Date.parse(c.created_at)) / 1000;
    const hms = `${Math.floor(seconds / 3600)}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
    const berlinDate = new Date(c.closed_at).toLocaleDateString('sv-SE', { timeZone: 'Europe/Berlin' });
    resolutions.push({ date: berlinDate, resolution_time: hms });
  }
  const resolved = inWindow.filter((c) => c.status === 'Closed').length;
  return {
    resolved_conversations_with_multiple_reply: multiple,
    resolved_conversations_with_one_reply: one,
    assigned_conversations: inWindow.filter((c) => c.assignable_id !== null).length,
    created_conversations: inWindow.length,
    conversations_with_responses: responses,
    resolutions_with_time: resolutions,
    avg_replies_to_resolution: resolved === 0 ? 0 : Math.round((replies / resolved) * 100) / 100,
  };
}

describe('GET /reports/:inbox_id/productivity', () => {
  it('matches the conversations created in the window (days in the organization time zone, Europe/Berlin)', async () => {
    // June: Berlin is UTC+2, so the window is 2026-05-31T22:00Z .. 2026-06-30T22:00Z.
    const res = await call(sb, 'GET', `/reports/${inboxId}/productivity?start_date=2026-06-01&end_date=2026-06-30`);
    expect(res.status).toBe(200);
    const want = await expected('2026-05-31T22:00:00.000Z', '2026-06-30T22:00:00.000Z');
    expect(want.created_conversations).toBeGreaterThan(10);
    expect(
      want.resolved_conversations_with_one_reply + want.resolved_conversations_with_multiple_reply,
    ).toBeGreaterThan(0);
    expect(res.body.data).toEqual(want);
  });

  it('follows changes: closing a conversation of the window adds a resolution', async () => {
    const url = `/reports/${inboxId}/productivity?start_date=2026-02-01&end_date=2026-02-28`;
    const before = (await call(sb, 'GET', url)).body.data;
    const open = (await allConversations()).find(
      (c) => c.status === 'Active' && c.created_at >= '2026-02-01T00:00:00Z' && c.created_at < '2026-02-27T00:00:00Z',
    )!;
    expect((await call(sb, 'PATCH', `/conversation/${open.id}`, { body: { status: 'Closed' } })).status).toBe(200);
    const after = (await call(sb, 'GET', url)).body.data;
    expect(after.resolutions_with_time.length).toBe(before.resolutions_with_time.length + 1);
    expect(after).toEqual(await expected('2026-01-31T23:00:00.000Z', '2026-02-28T23:00:00.000Z'));
  });

  it('requires start_date and end_date as dates, end not before start', async () => {
    const base = `/reports/${inboxId}/productivity`;
    const missing = await call(sb, 'GET', base);
    expect(Object.keys(missing.body.errors).sort()).toEqual(['end_date', 'start_date']);
    expect((await call(sb, 'GET', `${base}?start_date=2026-02-30&end_date=2026-03-01`)).body.errors).toHaveProperty(
      'start_date',
    );
    const reversed = await call(sb, 'GET', `${base}?start_date=2026-03-02&end_date=2026-03-01`);
    expect([reversed.status, Object.keys(reversed.body.errors)]).toEqual([422, ['end_date']]);
  });
});
