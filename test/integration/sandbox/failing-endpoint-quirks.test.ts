import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call } from './sandbox-client.js';

/**
 * Quirks that make one endpoint fail while every other answers (docs/sandbox.md,
 * "Quirks"): over real sockets, as a client meets them.
 */
let sb: RunningSandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

async function start(quirks?: string): Promise<RunningSandbox> {
  sb = await startSandbox({ seed: 51, conversations: 20, quirks });
  return sb;
}

const TOKEN = 'sandbox-admin';
const get = (url: string) => fetch(url, { headers: { authorization: `Bearer ${TOKEN}` }, redirect: 'manual' });

describe('quirks of one failing endpoint', () => {
  it('offsite-redirect: GET /v1/holidays answers 302 to the same path and query on another origin, which records what reaches it', async () => {
    const s = await start('offsite-redirect');
    const offsite = s.offsite as NonNullable<RunningSandbox['offsite']>;
    expect(new URL(offsite.origin).hostname).toBe(new URL(s.origin).hostname);
    expect(offsite.origin).not.toBe(s.origin);
    const redirected = await get(`${s.baseUrl}/holidays?per_page=100`);
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe(`${offsite.origin}/v1/holidays?per_page=100`);
    expect(offsite.received()).toEqual([]);
    // Only that path and verb moved: a holiday, business hours, the rest answer as before.
    expect((await call(s, 'GET', '/business-hours')).status).toBe(200);
    expect((await call(s, 'GET', '/me')).status).toBe(200);
    expect((await call(s, 'POST', '/holidays', { body: { name: 'x' } })).status).toBe(422);
    expect(s.stats().by_route['GET /v1/holidays']).toEqual({ '302': 1 });
    // A client that followed would be answered, and would have handed over its token.
    const followed = await fetch(redirected.headers.get('location') as string, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect([followed.status, await followed.json()]).toEqual([200, []]);
    expect(offsite.received()).toEqual([{ method: 'GET', url: '/v1/holidays?per_page=100', authorized: true }]);
    expect(JSON.stringify(offsite.received())).not.toContain(TOKEN);
  });

  it('offsite-redirect is off by default: GET /v1/holidays answers, and there is no other origin', async () => {
    const s = await start();
    expect((await get(`${s.baseUrl}/holidays`)).status).toBe(200);
    expect(s.offsite).toBeUndefined();
  });

  it('broken-tags: every GET /v1/inboxes/{id}/tags answers 500 with an incident id, every other route answers', async () => {
    const s = await start('broken-tags');
    const inboxes = (await call(s, 'GET', '/inboxes')).body as Array<{ id: string }>;
    expect(inboxes.length).toBeGreaterThan(1);
    for (const inbox of inboxes) {
      const tags = await call(s, 'GET', `/inboxes/${inbox.id}/tags?per_page=100`);
      expect(tags.status).toBe(500);
      expect(tags.body).toEqual({ message: expect.stringMatching(/^Server Error \(incident [0-9a-f-]{36}\)$/) });
    }
    // Still behind the token: an unknown one gets 401, not the broken route.
    expect((await call(s, 'GET', `/inboxes/${inboxes[0]?.id}/tags`, { token: 'nope' })).status).toBe(401);
    expect((await call(s, 'GET', '/holidays')).status).toBe(200);
    expect((await call(s, 'POST', '/search', { body: {} })).status).toBe(200);
  });
});
