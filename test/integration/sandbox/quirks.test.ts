import { afterEach, describe, expect, it } from 'vitest';
import { parseQuirks, QUIRK_NAMES, QuirkSpecError } from '../../../src/sandbox/deployment/quirks.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call } from './sandbox-client.js';

let sb: RunningSandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

async function start(quirks: string, conversations = 40): Promise<RunningSandbox> {
  sb = await startSandbox({ seed: 51, conversations, quirks });
  return sb;
}

async function search(s: RunningSandbox, body: Record<string, unknown> = {}) {
  return (await call(s, 'POST', '/search', { body: { per_page: 100, ...body } })).body.data.conversations;
}

describe('sandbox quirks', () => {
  it('parses names and search-cap:N, and rejects unknown names listing the valid ones', async () => {
    expect(parseQuirks('trash-hidden, search-cap:7').names).toEqual(['trash-hidden', 'search-cap']);
    expect(parseQuirks('search-cap:7').searchCap).toBe(7);
    expect(parseQuirks(['bare-429']).has('bare-429')).toBe(true);
    expect(() => parseQuirks('nope')).toThrow(QuirkSpecError);
    expect(() => parseQuirks('nope')).toThrow(QUIRK_NAMES.join(', '));
    expect(() => parseQuirks('newest-first:3')).toThrow(
      'only search-cap, silent-429, odd-retry-after, stuck-wrong-shape take a number',
    );
    expect(parseQuirks('silent-429').silent429Every).toBe(40);
    expect(parseQuirks('silent-429:10').silent429Every).toBe(10);
    expect(() => parseQuirks('silent-429:0')).toThrow('N must be a whole number from 1 up');
    await expect(startSandbox({ quirks: 'nope' })).rejects.toThrow('unknown quirk "nope"');
  });

  it('trash-hidden: a trashed conversation leaves search and its view answers 404 until restored', async () => {
    const s = await start('trash-hidden');
    const before = await search(s);
    const id = before.data[0].id;
    expect((await call(s, 'DELETE', `/conversation/${id}`)).status).toBe(200);
    const after = await search(s);
    expect(after.meta.total).toBe(before.meta.total - 1);
    expect(after.data.map((c: { id: string }) => c.id)).not.toContain(id);
    expect((await call(s, 'GET', `/conversation/${id}`)).status).toBe(404);
    expect((await call(s, 'GET', `/conversation/${id}/messages`)).status).toBe(404);
    expect((await call(s, 'PATCH', `/conversation/${id}/restore`)).status).toBe(200);
    expect((await call(s, 'GET', `/conversation/${id}`)).status).toBe(200);
    expect((await search(s)).meta.total).toBe(before.meta.total);
  });

  it('created-at-ties: created_at repeats, and an update moves a conversation within its tie', async () => {
    const s = await start('created-at-ties', 60);
    const items = (await search(s, { sort: 'oldest' })).data as Array<{ id: string; created_at: string }>;
    const times = items.map((c) => c.created_at);
    expect(new Set(times).size).toBeLessThan(times.length);
    const tie = times.find((t, k) => times.indexOf(t) !== k)!;
    const tied = items.filter((c) => c.created_at === tie).map((c) => c.id);
    const last = tied.at(-1)!;
    await call(s, 'POST', `/conversation/${last}/note`, { body: { message: 'moved' } });
    const again = (await search(s, { sort: 'oldest' })).data as Array<{ id: string; created_at: string }>;
    expect(again.filter((c) => c.created_at === tie)[0]!.id).toBe(last);
  });

  it('loose-types: integers as strings and booleans as 0/1 in conversation items', async () => {
    const s = await start('loose-types');
    const item = (await search(s)).data[0];
    expect(typeof item.ticket_id).toBe('string');
    expect(typeof item.messages_count).toBe('string');
    expect([0, 1]).toContain(item.is_spam);
    expect(typeof item.id).toBe('string');
  });

  it('big-integers: ticket numbers past 2^53 and one past 64 bits, as exact digits in lists, views and search', async () => {
    const s = await start('big-integers');
    const text = async (method: string, path: string, body?: unknown) => {
      const headers = { authorization: 'Bearer sandbox-admin', 'content-type': 'application/json' };
      const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
      return (await fetch(`${s.baseUrl}${path}`, init)).text();
    };
    const digits = (body: string, field: string) =>
      [...body.matchAll(new RegExp(`"${field}":(\\[[^\\]]*\\]|-?\\d+)`, 'g'))].map((m) => m[1]!);
    const listed = await text('POST', '/search', { per_page: 100, sort: 'oldest' });
    const tickets = digits(listed, 'ticket_id');
    expect(tickets).toHaveLength(JSON.parse(listed).data.conversations.meta.total);
    // The first organization's oldest conversation is past 64 bits; the others count up from 2^53 + 1.
    expect(tickets[0]).toBe('18446744073709551621');
    for (const ticket of tickets.slice(1)) expect(BigInt(ticket) > 2n ** 53n && BigInt(ticket) < 2n ** 63n).toBe(true);
    expect(digits(listed, 'legacy_ids')[1]).toMatch(
      /^\[92233720368547758\d\d,-90071992547\d+,12345678901234567890\d+\]$/,
    );
    // A view and a page of mine carry the same digits.
    const id = /"id":"([^"]+)","inbox_id":"[^"]+","ticket_id":18446744073709551621/.exec(listed)![1]!;
    expect(digits(await text('GET', `/conversation/${id}`), 'ticket_id')).toEqual(['18446744073709551621']);
    const mine = await text('GET', '/conversations/mine?per_page=100');
    expect(digits(mine, 'ticket_id').every((t) => tickets.includes(t))).toBe(true);
    // With loose-types the same digits come as strings.
    await s.close();
    const loose = await start('big-integers,loose-types');
    const item = (await search(loose, { sort: 'oldest' })).data[0];
    expect(item.ticket_id).toBe('18446744073709551621');
  });

  it('volatile-views: a view sets viewed_at and viewer_id; avatar URLs are signed anew on every read', async () => {
    const s = await start('volatile-views');
    const [first] = (await search(s)).data;
    s.clock.advance(60_000);
    await call(s, 'GET', `/conversation/${first.id}`);
    const [again] = (await search(s)).data;
    expect(again.viewed_at).not.toBe(first.viewed_at);
    expect(again.updated_at).toBe(first.updated_at);
    if (first.contact.avatar !== null) expect(again.contact.avatar).not.toBe(first.contact.avatar);
    const thread = (await call(s, 'GET', `/conversation/${first.id}/messages`)).body;
    const rethread = (await call(s, 'GET', `/conversation/${first.id}/messages`)).body;
    expect(thread[0].actor.avatar.split('?')[0]).toBe(rethread[0].actor.avatar.split('?')[0]);
    expect(thread[0].actor.avatar).not.toBe(rethread[0].actor.avatar);
  });

  it('newest-first: sort=oldest is ignored', async () => {
    const s = await start('newest-first');
    const oldest = (await search(s, { sort: 'oldest' })).data.map((c: { id: string }) => c.id);
    const newest = (await search(s, { sort: 'newest' })).data.map((c: { id: string }) => c.id);
    expect(oldest).toEqual(newest);
  });

  it('invitations-without-id: pending invitations carry no id', async () => {
    const s = await start('invitations-without-id');
    const users = (await call(s, 'GET', '/settings/users')).body as Array<{ id?: string; status: string }>;
    expect(users.some((u) => u.status === 'invited')).toBe(true);
    for (const u of users) expect(u.id === undefined).toBe(u.status === 'invited');
  });

  it('forbidden-threads: threads of one inbox answer 403, views still 200', async () => {
    const s = await start('forbidden-threads');
    const hidden = s.store.forbiddenInboxId();
    const item = (await search(s)).data.find((c: { inbox_id: string }) => c.inbox_id === hidden);
    expect((await call(s, 'GET', `/conversation/${item.id}/messages`)).status).toBe(403);
    expect((await call(s, 'GET', `/conversation/${item.id}`)).status).toBe(200);
  });

  it('proxy-html-errors and bare-429: some answers are an HTML 502/503 page or a 429 without seconds', async () => {
    const s = await start('proxy-html-errors,bare-429');
    const seen = { html: 0, bare: 0, dated: 0 };
    for (let k = 0; k < 200; k++) {
      const res = await call(s, 'GET', '/me');
      if (res.status === 502 || res.status === 503) {
        expect(res.headers.get('content-type')).toContain('text/html');
        expect(String(res.body)).toContain('<html>');
        seen.html++;
      } else if (res.status === 429) {
        const after = res.headers.get('retry-after');
        if (after === null) seen.bare++;
        else {
          expect(Number.isNaN(Date.parse(after))).toBe(false);
          seen.dated++;
        }
      }
    }
    expect(seen.html).toBeGreaterThan(0);
    expect(seen.bare).toBeGreaterThan(0);
    expect(seen.dated).toBeGreaterThan(0);
  });

  it('no-rate-headers and silent-429: no X-RateLimit-* anywhere; a gateway 429 that says nothing, uncounted by the limiter', async () => {
    sb = await startSandbox({ seed: 51, conversations: 5, quirks: 'no-rate-headers,silent-429:4', rateLimit: 50 });
    const seen = { ok: 0, silent: 0, limited: 0 };
    for (let k = 0; k < 200 && seen.limited === 0; k++) {
      const res = await call(sb, 'GET', '/me');
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      expect(res.headers.get('x-ratelimit-remaining')).toBeNull();
      if (res.status === 200) seen.ok++;
      else if (res.headers.get('retry-after') === null) {
        expect([res.status, res.body.message]).toEqual([429, 'Too Many Requests']);
        seen.silent++;
      } else {
        // The limiter's own 429, once its 50 are spent: Retry-After still comes.
        expect([res.status, res.body.message]).toEqual([429, 'Too Many Attempts.']);
        seen.limited++;
      }
    }
    // The gateway's 429s (about one request in 4) were not counted: the limiter let all 50 through.
    expect(seen.ok).toBe(50);
    expect(seen.silent).toBeGreaterThan(5);
    expect(seen.limited).toBe(1);
  });

  it('search-cap: no item past N while meta.total counts them all', async () => {
    const s = await start('search-cap:10');
    const page1 = await search(s, { per_page: 8 });
    expect(page1.data).toHaveLength(8);
    const page2 = await search(s, { per_page: 8, page: 2 });
    expect(page2.data).toHaveLength(2);
    expect(page2.meta.total).toBeGreaterThan(10);
    expect((await search(s, { per_page: 8, page: 3 })).data).toHaveLength(0);
  });

  it('hidden-conversation: one conversation mid-list is left out of every page, still counted and still viewable', async () => {
    const s = await start('hidden-conversation');
    const plain = await startSandbox({ seed: 51, conversations: 40 });
    try {
      const all = (await call(plain, 'POST', '/search', { body: { per_page: 100, sort: 'oldest' } })).body.data
        .conversations.data as Array<{ id: string }>;
      const shown = await search(s, { sort: 'oldest' });
      expect(shown.meta.total).toBe(all.length);
      expect(shown.data).toHaveLength(all.length - 1);
      const missing = all.filter((c) => !shown.data.some((d: { id: string }) => d.id === c.id));
      expect(missing).toHaveLength(1);
      expect(all.indexOf(missing[0]!)).toBe(Math.floor(all.length / 2));
      expect((await call(s, 'GET', `/conversation/${missing[0]!.id}`)).status).toBe(200);
      // Newest first too.
      expect((await search(s)).data.map((c: { id: string }) => c.id)).not.toContain(missing[0]!.id);
    } finally {
      await plain.close();
    }
  });
});
