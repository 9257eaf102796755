import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/api/create-api-client.js';
import { collect } from '../../../src/api/endpoints/paginate.js';
import type { PageInfo } from '../../../src/api/endpoints/types.js';
import { FatalApiError } from '../../../src/api/errors/errors.js';
import { ConfigError } from '../../../src/errors.js';
import { BASE, blockNetwork, ORIGIN, rejection, type TestClient, TOKEN, testClient } from './nock-client.js';

let t: TestClient | undefined;
beforeAll(blockNetwork);
afterEach(() => {
  t?.close();
  t = undefined;
  nock.cleanAll();
});
afterAll(() => nock.enableNetConnect());

describe('conversation lists', () => {
  it('searchConversations POSTs /search with per_page=100 and the sort, through the search wrapper', async () => {
    t = testClient();
    const page = (ids: string[], next: string | null, current: number) => ({
      success: true,
      data: {
        conversations: {
          data: ids.map((id) => ({ id })),
          links: { next },
          meta: { current_page: current, last_page: 2, total: 3 },
        },
      },
    });
    const scope = nock(ORIGIN)
      .post('/v1/search', {})
      .query({ per_page: '100', sort: 'oldest' })
      .reply(200, page(['a', 'b'], `${BASE}/search?page=2`, 1))
      .post('/v1/search', {})
      .query({ page: '2', per_page: '100', sort: 'oldest' })
      .reply(200, page(['c'], null, 2));
    const pages: PageInfo[] = [];
    const items = await collect(t.client.api.searchConversations({ sort: 'oldest', onPage: (p) => pages.push(p) }));
    expect(items.map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(pages.at(-1)).toMatchObject({ lastPage: 2, total: 3, pagesRead: 2 });
    expect(scope.isDone()).toBe(true);
  });

  it('retries POST /search after a 500: it only reads (docs/operations.md)', async () => {
    t = testClient();
    nock(ORIGIN)
      .post('/v1/search')
      .query(true)
      .reply(500, { message: 'boom' })
      .post('/v1/search')
      .query(true)
      .reply(200, { success: true, data: { conversations: { data: [{ id: 'a' }], links: { next: null } } } });
    expect(await collect(t.client.api.searchConversations())).toEqual([{ id: 'a' }]);
  });

  it('listConversations follows conversationsEndpoint', async () => {
    t = testClient({ conversationsEndpoint: 'mine' });
    nock(ORIGIN)
      .get('/v1/conversations/mine')
      .query({ per_page: '100', sort: 'newest' })
      .reply(200, { data: [{ id: 'm' }], links: { next: null }, meta: { current_page: 1, last_page: 1 } });
    expect(await collect(t.client.api.listConversations({ sort: 'newest' }))).toEqual([{ id: 'm' }]);
  });

  it('keeps unknown fields of list items', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/inboxes/i%201/tags')
      .query({ per_page: '100' })
      .reply(200, { data: [{ id: 't', name: 'vip', color: '#FF0000', brand_new: { x: 1 } }], links: { next: null } });
    const tags = { path: '/inboxes/{inbox_id}/tags', paginator: 'pages', params: { inbox_id: 'i 1' } } as const;
    expect(await collect(t.client.api.read(tags))).toEqual([
      { id: 't', name: 'vip', color: '#FF0000', brand_new: { x: 1 } },
    ]);
  });
});

describe('single resources and 404', () => {
  it('unwraps {data} and returns null on 404 where a 404 is a deletion signal', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/conversation/c1')
      .reply(200, { data: { id: 'c1', tags: ['t'] } })
      .get('/v1/conversation/gone')
      .reply(404, { message: 'Not found' })
      .get('/v1/conversation/gone/messages')
      .query(true)
      .reply(404, { message: 'Not found' })
      .get('/v1/business-hours/b0')
      .reply(404, { message: 'Not found' })
      .get('/v1/holidays/h0')
      .reply(404, { message: 'Not found' })
      .get('/v1/me')
      .reply(404, { message: 'Not found' });
    expect(await t.client.api.getConversation('c1')).toEqual({ id: 'c1', tags: ['t'] });
    expect(await t.client.api.getConversation('gone')).toBeNull();
    expect(await t.client.api.listThreadEvents('gone')).toBeNull();
    expect(await t.client.api.getBusinessHours('b0')).toBeNull();
    expect(await t.client.api.getHoliday('h0')).toBeNull();
    const error = await rejection(t.client.api.me());
    expect(error).toBeInstanceOf(FatalApiError);
    expect(error).toMatchObject({ code: 'API_NOT_FOUND', status: 404 });
  });

  it('returns the whole body when it carries more than {data}', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/me')
      .reply(200, { data: { id: 'u' }, organization: { company: 'Acme', slug: 'acme' }, badge_counts: { mine: 2 } });
    expect(await t.client.api.me()).toEqual({
      data: { id: 'u' },
      organization: { company: 'Acme', slug: 'acme' },
      badge_counts: { mine: 2 },
    });
  });

  it('reads a single resource with its query (a report day) as one item, {data} unwrapped', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/reports/i1/productivity')
      .query({ start_date: '2026-07-01', end_date: '2026-07-01' })
      .reply(200, { data: { created_conversations: 3 } });
    const day = { start_date: '2026-07-01', end_date: '2026-07-01' };
    const report = { path: '/reports/{inbox_id}/productivity', paginator: 'single' as const };
    expect(await collect(t.client.api.read({ ...report, params: { inbox_id: 'i1' }, query: day }))).toEqual([
      { created_conversations: 3 },
    ]);
  });

  it('reads an unpaginated list without per_page', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/holidays')
      .reply(200, [{ id: 'h1' }, { id: 'h2' }]);
    expect(await collect(t.client.api.read({ path: '/holidays', paginator: 'unpaginated' }))).toEqual([
      { id: 'h1' },
      { id: 'h2' },
    ]);
  });

  it('refuses a path placeholder it has no value for, before any request', () => {
    t = testClient();
    expect(() => t?.client.api.read({ path: '/inboxes/{inbox_id}/tags', paginator: 'pages' })).toThrow(
      '/inboxes/{inbox_id}/tags: no value for {inbox_id}',
    );
  });
});

describe('thread events', () => {
  it('accepts a plain array, {data: [...]}, or a paginator', async () => {
    t = testClient();
    const event = (id: string) => ({ event_type: 'message', event: { id }, actor: { type: 'contact' }, extra: {} });
    nock(ORIGIN)
      .get('/v1/conversation/a/messages')
      .query(true)
      .reply(200, [event('1'), event('2')])
      .get('/v1/conversation/b/messages')
      .query(true)
      .reply(200, { data: [event('3')] })
      .get('/v1/conversation/c/messages')
      .query({ per_page: '100' })
      .reply(200, {
        data: [event('4')],
        links: { next: `${BASE}/conversation/c/messages?page=2` },
        meta: { current_page: 1 },
      })
      .get('/v1/conversation/c/messages')
      .query({ page: '2', per_page: '100' })
      .reply(200, { data: [event('5')], links: { next: null }, meta: { current_page: 2 } });
    const ids = async (cid: string) =>
      ((await t?.client.api.listThreadEvents(cid)) ?? []).map((e) => (e.event as { id: string }).id);
    expect(await ids('a')).toEqual(['1', '2']);
    expect(await ids('b')).toEqual(['3']);
    expect(await ids('c')).toEqual(['4', '5']);
  });
});

describe('business hours and holidays', () => {
  it('lists without per_page (unpaginated), writes return data, deletes resolve on 204', async () => {
    t = testClient();
    const profile = { id: 'b1', name: 'EU', type: 'calendar_24_7', weekly_schedule: null, inbox_channels: [] };
    const scope = nock(ORIGIN)
      .get('/v1/business-hours')
      .reply(200, [profile])
      .post('/v1/business-hours', { name: 'EU', type: 'calendar_24_7' })
      .reply(201, { message: 'Created', data: profile })
      .patch('/v1/business-hours/b1', { name: 'EU 2' })
      .reply(200, { message: 'Updated', data: { ...profile, name: 'EU 2' } })
      .delete('/v1/business-hours/b1')
      .reply(204)
      .get('/v1/holidays')
      .reply(200, [{ id: 'h1' }])
      .patch('/v1/holidays/h1')
      .reply(200, { message: 'Holiday updated.' })
      .delete('/v1/holidays/h1')
      .reply(204);
    expect(await t.client.api.listBusinessHours()).toEqual([profile]);
    expect(await t.client.api.createBusinessHours({ name: 'EU', type: 'calendar_24_7' })).toEqual(profile);
    expect((await t.client.api.updateBusinessHours('b1', { name: 'EU 2' })).name).toBe('EU 2');
    await expect(t.client.api.deleteBusinessHours('b1')).resolves.toBeUndefined();
    expect(await t.client.api.listHolidays()).toEqual([{ id: 'h1' }]);
    expect(await t.client.api.updateHoliday('h1', { name: 'x' })).toEqual({ message: 'Holiday updated.' });
    await expect(t.client.api.deleteHoliday('h1')).resolves.toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('createApiClient options', () => {
  it('refuses plain http to a non-loopback host with a ConfigError', () => {
    let error: unknown;
    try {
      createApiClient({ baseUrl: 'http://api.example.test/v1', token: TOKEN });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([
      {
        path: 'baseUrl',
        message: 'must use https unless the host is loopback; set source.allow_insecure_http: true to override',
      },
    ]);
    expect((error as ConfigError).exitCode).toBe(64);
  });

  it('accepts http on loopback, or anywhere when allowInsecureHttp is set', () => {
    const built = (options: { baseUrl: string; allowInsecureHttp?: boolean }) => {
      const client = createApiClient({ token: TOKEN, ...options });
      client.close();
      return client.api;
    };
    for (const baseUrl of ['http://127.0.0.1:4010/v1', 'http://localhost:4010/v1', 'http://[::1]:4010/v1']) {
      expect(built({ baseUrl })).toBeDefined();
    }
    expect(built({ baseUrl: 'http://api.example.test/v1', allowInsecureHttp: true })).toBeDefined();
    // The same host without the override is refused: the override is what made it pass.
    expect(() => built({ baseUrl: 'http://api.example.test/v1' })).toThrow(ConfigError);
  });

  it('lists every bad option at once, those of its queue included', () => {
    const error = (() => {
      try {
        createApiClient({ baseUrl: 'ftp://x/v1', token: ' ', concurrency: 0, connectTimeoutMs: 0 });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.path)).toEqual([
      'baseUrl',
      'token',
      'connectTimeoutMs',
      'concurrency',
    ]);
    expect(() => createApiClient({ baseUrl: BASE, token: TOKEN, concurrency: 0 })).toThrow(
      'Expected `concurrency` to be a whole number from 1 to 64, got `0`',
    );
  });
});
