import { afterEach, describe, expect, it } from 'vitest';
import { parseQuirks } from '../../../src/sandbox/deployment/quirks.js';
import { oddRetryAfterValues } from '../../../src/sandbox/requests/odd-retry-after.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { stuckReport, stuckThreadId } from '../../../src/sandbox/store/wrong-shape.js';
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

const page = (s: RunningSandbox, query: string) =>
  call(s, 'POST', `/search?${query}`, { body: {} }).then((r) => r.body?.data?.conversations ?? r.body);

describe('sandbox quirks of rougher answers', () => {
  it('parses odd-retry-after:N and stuck-wrong-shape:N', () => {
    expect(parseQuirks('odd-retry-after').oddRetryAfterEvery).toBe(50);
    expect(parseQuirks('odd-retry-after:7').oddRetryAfterEvery).toBe(7);
    expect(parseQuirks('stuck-wrong-shape').stuckWrongShapeTimes).toBe(6);
    expect(parseQuirks('stuck-wrong-shape:2').stuckWrongShapeTimes).toBe(2);
    expect(() => parseQuirks('odd-retry-after:0')).toThrow('N must be a whole number from 1 up');
  });

  it('odd-retry-after: at every Nth request a 1 s spell of 429s with the next odd Retry-After, no rate headers, uncounted', async () => {
    const s = await start('odd-retry-after:3');
    const seen: Array<{ status: number; retryAfter: string | null; remaining: string | null }> = [];
    for (let i = 0; i < 4; i++) {
      const r = await call(s, 'GET', '/me');
      seen.push({
        status: r.status,
        retryAfter: r.headers.get('retry-after'),
        remaining: r.headers.get('x-ratelimit-remaining'),
      });
    }
    expect(seen.map((x) => x.status)).toEqual([200, 200, 429, 429]);
    expect(seen[2]).toEqual({ status: 429, retryAfter: '0', remaining: null });
    // The spell ends a second later (sandbox clock); the next spell carries the next value.
    s.clock.advance(1_000);
    expect((await call(s, 'GET', '/me')).status).toBe(200);
    const next = await call(s, 'GET', '/me');
    expect(next.headers.get('retry-after')).toBe('-1');
    expect(oddRetryAfterValues(Date.parse('2026-01-01T00:01:00Z'))).toEqual([
      '0',
      '-1',
      '0.4',
      '86400000',
      'Thu, 01 Jan 2026 00:00:00 GMT',
      'soon',
    ]);
    // Three 429s in all: two in the first spell, one in the second.
    expect(s.stats().by_status['429']).toBe(3);
  });

  it('wrong-shape: the first answer to a thread version, a page and a report is 200 {"data": null}; the next is right', async () => {
    const s = await start('wrong-shape');
    const first = await page(s, 'per_page=100&sort=oldest');
    expect(first).toEqual({ data: null });
    const again = await page(s, 'per_page=100&sort=oldest');
    expect(again.data.length).toBeGreaterThan(0);
    const id = again.data[0].id as string;
    expect((await call(s, 'GET', `/conversation/${id}/messages`)).body).toEqual({ data: null });
    expect(Array.isArray((await call(s, 'GET', `/conversation/${id}/messages`)).body)).toBe(true);
    // A new version of the thread answers wrongly once more.
    await call(s, 'POST', `/conversation/${id}/note`, { body: { message: 'x' } });
    expect((await call(s, 'GET', `/conversation/${id}/messages`)).body).toEqual({ data: null });
    const inbox = s.store.inboxes(s.store.world.organizations[0]!.id)[0]!.id;
    const report = `/reports/${inbox}/productivity?start_date=2026-10-01&end_date=2026-10-01`;
    expect((await call(s, 'GET', report)).body).toEqual({ data: null });
    expect((await call(s, 'GET', report)).body.data).toMatchObject({ assigned_conversations: expect.any(Number) });
  });

  it('stuck-wrong-shape: the oldest thread, page 2 and yesterday’s first report answer wrongly N times, then right', async () => {
    const s = await start('stuck-wrong-shape:2', 260);
    const thread = `/conversation/${stuckThreadId(s.store)}/messages`;
    const { inboxId, day } = stuckReport(s.store)!;
    const report = `/reports/${inboxId}/productivity?start_date=${day}&end_date=${day}`;
    for (let ask = 1; ask <= 3; ask++) {
      const wrong = ask <= 2;
      expect((await call(s, 'GET', thread)).body, `thread ask ${ask}`).toEqual(
        wrong ? { data: null } : expect.any(Array),
      );
      expect(await page(s, 'page=2&per_page=100'), `page ask ${ask}`).toEqual(
        wrong ? { data: null } : expect.objectContaining({ data: expect.any(Array) }),
      );
      expect((await call(s, 'GET', report)).body, `report ask ${ask}`).toEqual(
        wrong ? { data: null } : { data: expect.any(Object) },
      );
    }
    // Other pages, threads and days are never stuck.
    expect((await page(s, 'page=1&per_page=100')).data).toHaveLength(100);
  });

  it('redirects: 301, 307 and 308 to the same path with a slash, on the same origin; served there', async () => {
    const s = await start('redirects');
    const headers = { authorization: 'Bearer sandbox-admin', 'content-type': 'application/json' };
    const hit = (method: string, path: string) =>
      fetch(`${s.baseUrl}${path}`, { method, headers, body: method === 'POST' ? '{}' : undefined, redirect: 'manual' });
    const inboxes = await hit('GET', '/inboxes?per_page=100');
    expect(inboxes.status).toBe(301);
    expect(inboxes.headers.get('location')).toBe(`${s.baseUrl}/inboxes/?per_page=100`);
    const users = await hit('GET', '/settings/users');
    expect([users.status, users.headers.get('location')]).toEqual([308, '/v1/settings/users/']);
    const search = await hit('POST', '/search?sort=oldest');
    expect([search.status, search.headers.get('location')]).toEqual([307, `${s.baseUrl}/search/?sort=oldest`]);
    expect((await hit('GET', '/inboxes/?per_page=100')).status).toBe(200);
    expect((await hit('POST', '/search/?sort=oldest')).status).toBe(200);
    // Nothing else moved.
    expect((await hit('GET', '/me')).status).toBe(200);
  });

  it('page-size-drift: page 3 on at 150 whatever per_page asks, its meta says so, its links still ask the size asked', async () => {
    const s = await start('page-size-drift', 500);
    const third = await page(s, 'page=3&per_page=100&sort=oldest');
    expect(third.meta).toMatchObject({ current_page: 3, per_page: 150, from: 301 });
    expect(third.data).toHaveLength(Math.min(150, third.meta.total - 300));
    expect(third.links.first).toContain('per_page=100');
    // Pages 1 and 2 honour per_page up to 150, so the range 201-300 can be asked for.
    const second = await page(s, 'page=2&per_page=150&sort=oldest');
    expect(second.meta).toMatchObject({ per_page: 150, from: 151, to: 300 });
  });
});
