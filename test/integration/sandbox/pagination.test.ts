import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { type ApiResponse, call } from './sandbox-client.js';

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await startSandbox({ seed: 5, conversations: 400 });
});
afterAll(() => sb.close());

const PRIORITY = { High: 0, Medium: 1, Low: 2 } as Record<string, number>;

/** Follows links.next from the first page; returns every page. */
async function walk(first: string, method: 'GET' | 'POST', unwrap: (r: ApiResponse) => ApiResponse['body']) {
  const pages = [];
  let url: string | null = first;
  while (url) {
    const res = await call(sb, method, url);
    expect(res.status).toBe(200);
    const page = unwrap(res);
    pages.push(page);
    url = page.links.next;
    expect(pages.length).toBeLessThan(100);
  }
  return pages;
}

describe('counting paginator', () => {
  it('GET /conversations/mine: links and meta at the edges and in the middle, every item once', async () => {
    const pages = await walk('/conversations/mine?per_page=7', 'GET', (r) => r.body);
    const first = pages[0];
    const last = pages[pages.length - 1];
    const total = first.meta.total;
    expect(pages.length).toBe(Math.ceil(total / 7));
    expect(pages.length).toBeGreaterThan(2);
    expect(first.links.prev).toBeNull();
    expect(last.links.next).toBeNull();
    expect(first.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: pages.length,
      per_page: 7,
      to: 7,
      total,
      path: `${sb.baseUrl}/conversations/mine`,
    });
    expect(first.links.first).toBe(`${sb.baseUrl}/conversations/mine?page=1&per_page=7`);
    expect(first.links.last).toBe(`${sb.baseUrl}/conversations/mine?page=${pages.length}&per_page=7`);
    expect(pages[1].links.prev).toBe(first.links.first);
    expect(last.meta.to).toBe(total);
    const ids = pages.flatMap((p) => p.data.map((c: { id: string }) => c.id));
    expect(ids.length).toBe(total);
    expect(new Set(ids).size).toBe(total);
    const me = (await call(sb, 'GET', '/me')).body.data.id;
    for (const p of pages) for (const c of p.data) expect(c.assignable_id).toBe(me);
    // created_at descending (default sort newest).
    const created = pages.flatMap((p) => p.data.map((c: { created_at: string }) => c.created_at));
    expect([...created].sort().reverse()).toEqual(created);
  });

  it('sorts oldest and priority (High > Medium > Low, then newest), stable across pages', async () => {
    const oldest = await walk('/conversations/mine?per_page=50&sort=oldest', 'GET', (r) => r.body);
    const created = oldest.flatMap((p) => p.data.map((c: { created_at: string }) => c.created_at));
    expect([...created].sort()).toEqual(created);
    expect(oldest[0].links.next).toContain('sort=oldest');
    const byPriority = await walk('/conversations/mine?per_page=9&sort=priority', 'GET', (r) => r.body);
    const items = byPriority.flatMap((p) => p.data) as Array<{ priority: string; created_at: string }>;
    for (let k = 1; k < items.length; k++) {
      const [a, b] = [items[k - 1]!, items[k]!];
      const order = PRIORITY[a.priority]! - PRIORITY[b.priority]!;
      expect(order < 0 || (order === 0 && a.created_at > b.created_at)).toBe(true);
    }
    expect(new Set(items.map((i) => i.priority))).toEqual(new Set(['High', 'Medium', 'Low']));
  });

  it('validates page, per_page and sort; clamps per_page above 100; empty page past the end', async () => {
    for (const query of ['page=0', 'page=abc', 'per_page=0', 'per_page=-5', 'per_page=x', 'sort=random']) {
      const res = await call(sb, 'GET', `/conversations/mine?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe('The given data was invalid.');
      expect(Object.keys(res.body.errors)).toHaveLength(1);
    }
    const clamped = await call(sb, 'GET', '/conversations/mine?per_page=500');
    expect(clamped.body.meta.per_page).toBe(100);
    const past = await call(sb, 'GET', '/conversations/mine?page=999');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta).toMatchObject({ current_page: 999, from: null, to: null });
    expect(past.body.links.next).toBeNull();
    const defaults = await call(sb, 'GET', '/conversations/mine');
    expect(defaults.body.meta.per_page).toBe(20);
  });
});

describe('POST /search', () => {
  it('wraps a counting paginator in {success, data: {conversations}}; page params from the query or the body', async () => {
    const res = await call(sb, 'POST', '/search?per_page=5', { body: { status: 'Pending' } });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const page = res.body.data.conversations;
    expect(Object.keys(page)).toEqual(['data', 'links', 'meta']);
    expect(page.meta.per_page).toBe(5);
    for (const c of page.data) expect(c.status).toBe('Pending');
    const viaBody = await call(sb, 'POST', '/search', { body: { status: 'Pending', per_page: 5, page: 2 } });
    expect(viaBody.body.data.conversations.meta).toMatchObject({
      current_page: 2,
      per_page: 5,
      total: page.meta.total,
    });
    // A followed next link wins over a page in the body.
    const next = await call(sb, 'POST', page.links.next, { body: { status: 'Pending', page: 1 } });
    expect(next.body.data.conversations.data).toEqual(viaBody.body.data.conversations.data);
  });

  it('filters by inbox and text; rejects unrecognised body fields', async () => {
    const inboxes = (await call(sb, 'GET', '/inboxes')).body;
    const byInbox = await call(sb, 'POST', '/search?per_page=100', { body: { inbox_id: inboxes[1].id } });
    const all = byInbox.body.data.conversations;
    expect(all.meta.total).toBeGreaterThan(0);
    for (const c of all.data) expect(c.inbox_id).toBe(inboxes[1].id);
    const text = await call(sb, 'POST', '/search?per_page=100', { body: { query: 'REFUND' } });
    const found = text.body.data.conversations.data;
    expect(found.length).toBeGreaterThan(0);
    for (const c of found) {
      const hay = `${c.subject} ${c.excerpt} ${c.contact.email}`.toLowerCase();
      expect(hay).toContain('refund');
    }
    const bad = await call(sb, 'POST', '/search', { body: { query: 'x', colour: 'red' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ colour: ['The field is not recognized.'] });
  });
});

describe('simple paginator (inbox tags)', () => {
  it('has no total/last_page, adds current_page_url, and next is null on the last page', async () => {
    const inbox = (await call(sb, 'GET', '/inboxes')).body[0];
    const pages = await walk(`/inboxes/${inbox.id}/tags?per_page=4`, 'GET', (r) => r.body);
    expect(pages.length).toBe(2);
    const [first, second] = pages;
    expect(Object.keys(first.meta).sort()).toEqual([
      'current_page',
      'current_page_url',
      'from',
      'path',
      'per_page',
      'to',
    ]);
    expect(first.meta.current_page_url).toBe(`${sb.baseUrl}/inboxes/${inbox.id}/tags?page=1&per_page=4`);
    expect(first.links.prev).toBeNull();
    expect(second.links.prev).toBe(first.links.first);
    expect(second.links.next).toBeNull();
    const tags = pages.flatMap((p) => p.data);
    expect(tags).toHaveLength(6);
    for (const t of tags) {
      expect(Object.keys(t).sort()).toEqual(['color', 'id', 'name']);
      expect(t.color).toMatch(/^#[0-9A-F]{6}$/);
    }
  });
});
