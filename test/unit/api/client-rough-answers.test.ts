import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../../../src/api/endpoints/paginate.js';
import { FatalApiError, RetriableApiError } from '../../../src/api/errors/errors.js';
import { BASE, blockNetwork, ORIGIN, rejection, type TestClient, testClient } from './nock-client.js';

let t: TestClient | undefined;
beforeAll(blockNetwork);
afterEach(() => {
  t?.close();
  t = undefined;
  nock.cleanAll();
});
afterAll(() => nock.enableNetConnect());

describe('client: a 200 whose JSON is not of the shape the endpoint serves', () => {
  it('retries a thread answered {"data": null}, like a 5xx, and counts the retry', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/conversation/c1/messages')
      .query(true)
      .reply(200, { data: null })
      .get('/v1/conversation/c1/messages')
      .query(true)
      .reply(200, [{ event_type: 'message', event: { id: 'm1' } }]);
    expect(await t.client.api.listThreadEvents('c1')).toEqual([{ event_type: 'message', event: { id: 'm1' } }]);
    expect(t.client.stats()).toMatchObject({ requests: 2, retries: 1, byStatus: { '200': 2 } });
  });

  it('retries a single resource answered with no resource in data, and a report answered with an array', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/conversation/c1')
      .reply(200, { data: null })
      .get('/v1/conversation/c1')
      .reply(200, { data: { id: 'c1' } })
      .get('/v1/reports/i1/productivity')
      .query(true)
      .reply(200, [])
      .get('/v1/reports/i1/productivity')
      .query(true)
      .reply(200, { data: { assigned_conversations: 3 } });
    expect(await t.client.api.getConversation('c1')).toEqual({ id: 'c1' });
    const day = { start_date: '2026-07-01', end_date: '2026-07-01' };
    const report = {
      path: '/reports/{inbox_id}/productivity',
      paginator: 'single',
      params: { inbox_id: 'i1' },
    } as const;
    expect(await collect(t.client.api.read({ ...report, query: day }))).toEqual([{ assigned_conversations: 3 }]);
    expect(t.client.stats()).toMatchObject({ requests: 4, retries: 2 });
  });

  it('retries a search page of the wrong shape, then reads the list', async () => {
    t = testClient();
    nock(ORIGIN)
      .post('/v1/search')
      .query(true)
      .reply(200, { success: true, data: { conversations: null } })
      .post('/v1/search')
      .query(true)
      .reply(200, { success: true, data: { conversations: { data: [{ id: 'c1' }] } } });
    expect(await collect(t.client.api.searchConversations({}))).toEqual([{ id: 'c1' }]);
    expect(t.client.stats()).toMatchObject({ requests: 2, retries: 1 });
  });

  it('fails with a retriable API_BAD_RESPONSE naming the shape once the retries are spent', async () => {
    t = testClient({ retry: { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1_000 } });
    nock(ORIGIN).get('/v1/conversation/c1/messages').query(true).times(3).reply(200, { data: null });
    const error = await rejection(t.client.api.listThreadEvents('c1'));
    expect(error).toBeInstanceOf(RetriableApiError);
    expect(error).toMatchObject({ code: 'API_BAD_RESPONSE', status: 200 });
    expect(error.message).toContain('JSON of the wrong shape (unrecognised list shape)');
    expect(t.client.stats()).toMatchObject({ requests: 3, retries: 2 });
  });

  it('never retries a write whatever its body (it may have had effects)', async () => {
    t = testClient();
    nock(ORIGIN).post('/v1/holidays').reply(200, { data: null, message: 'Created' });
    await t.client.api.createHoliday({ name: 'x', start_date: '2027-01-01', end_date: '2027-01-01' });
    expect(t.client.stats().requests).toBe(1);
  });
});

describe('client: redirects', () => {
  it('follows a same-origin redirect on a read (absolute or relative Location), each hop a request', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/inboxes')
      .query(true)
      .reply(301, '', { location: `${ORIGIN}/v1/inboxes/?per_page=100` })
      .get('/v1/inboxes/')
      .query(true)
      .reply(200, { data: [{ id: 'i1' }] })
      .get('/v1/me')
      .reply(308, '', { location: '/v1/me/' })
      .get('/v1/me/')
      .reply(200, { data: { id: 'u1' } });
    expect(await collect(t.client.api.listInboxes())).toEqual([{ id: 'i1' }]);
    expect(await t.client.api.me()).toEqual({ id: 'u1' });
    expect(t.client.stats()).toMatchObject({ requests: 4, byStatus: { '200': 2, '301': 1, '308': 1 } });
  });

  it('keeps the method and body of POST /search across a redirect', async () => {
    t = testClient();
    nock(ORIGIN)
      .post('/v1/search')
      .query(true)
      .reply(307, '', { location: `${ORIGIN}/v1/search/?per_page=100` })
      .post('/v1/search/', {})
      .query(true)
      .reply(200, { success: true, data: { conversations: { data: [{ id: 'c1' }] } } });
    expect(await collect(t.client.api.searchConversations({}))).toEqual([{ id: 'c1' }]);
  });

  it('refuses a redirect to another origin before sending anything there', async () => {
    t = testClient();
    nock(ORIGIN).get('/v1/me').reply(302, '', { location: 'https://elsewhere.example.test/v1/me' });
    const elsewhere = nock('https://elsewhere.example.test')
      .get('/v1/me')
      .reply(200, { data: { id: 'x' } });
    const error = await rejection(t.client.api.me());
    expect(error).toBeInstanceOf(FatalApiError);
    expect(error).toMatchObject({ code: 'API_REDIRECT', status: 302 });
    expect(error.message).toBe(
      `GET ${BASE}/me was redirected (302) to another origin (https://elsewhere.example.test): refused, ` +
        `the token is only ever sent to ${ORIGIN} (source.base_url) (API_REDIRECT)`,
    );
    expect(elsewhere.isDone()).toBe(false);
  });

  it('catches a redirect loop and stops after too many hops', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/me')
      .reply(301, '', { location: '/v1/me/' })
      .get('/v1/me/')
      .reply(301, '', { location: '/v1/me' });
    const loop = await rejection(t.client.api.me());
    expect(loop).toMatchObject({ code: 'API_REDIRECT' });
    expect(loop.message).toContain('back to /v1/me: a redirect loop');
    expect(t.client.stats().requests).toBe(2);

    const chain = nock(ORIGIN);
    for (let i = 0; i < 7; i++) chain.get(`/v1/hop${i}`).reply(302, '', { location: `/v1/hop${i + 1}` });
    chain.get('/v1/conversation/c1').reply(302, '', { location: '/v1/hop0' });
    const tooMany = await rejection(t.client.api.getConversation('c1'));
    expect(tooMany.message).toContain('more than 5 times in a row');
  });

  it('does not follow a redirect on a write: it stays an API_HTTP error', async () => {
    t = testClient();
    nock(ORIGIN).post('/v1/holidays').reply(301, '', { location: '/v1/holidays/' });
    const error = await rejection(
      t.client.api.createHoliday({ name: 'x', start_date: '2027-01-01', end_date: '2027-01-01' }),
    );
    expect(error).toMatchObject({ code: 'API_HTTP', status: 301 });
    expect(t.client.stats().requests).toBe(1);
  });

  it('refuses a redirect without a Location', async () => {
    t = testClient();
    nock(ORIGIN).get('/v1/me').reply(301, '');
    expect(await rejection(t.client.api.me())).toMatchObject({
      code: 'API_REDIRECT',
      message: `GET ${BASE}/me was redirected (301) without a Location header (API_REDIRECT)`,
    });
  });
});

describe('client: integers beyond 2^53 (the document types ticket_id as an unbounded integer)', () => {
  it('reads them as bigints of the digits sent, in a read and in the answer of a write; a cut body is still retried', async () => {
    t = testClient();
    const item = '{"id":"c1","ticket_id":9007199254740993,"custom_field_values":{"ids":[-18446744073709551621,1.5]}}';
    nock(ORIGIN)
      .get('/v1/conversation/c1')
      .reply(200, `{"data":${item.slice(0, 40)}`, { 'content-type': 'application/json' })
      .get('/v1/conversation/c1')
      .reply(200, `{"data":${item}}`, { 'content-type': 'application/json' })
      .patch('/v1/holidays/h1')
      .reply(200, '{"message":"ok","data":{"id":"h1","seq":12345678901234567890}}', {
        'content-type': 'application/json',
      });
    expect(await t.client.api.getConversation('c1')).toEqual({
      id: 'c1',
      ticket_id: 9007199254740993n,
      custom_field_values: { ids: [-18446744073709551621n, 1.5] },
    });
    expect(t.client.stats()).toMatchObject({ requests: 2, retries: 1 });
    const updated = await t.client.api.updateHoliday('h1', {
      name: 'x',
      start_date: '2026-01-01',
      end_date: '2026-01-01',
    });
    expect(updated).toEqual({ id: 'h1', seq: 12345678901234567890n });
  });
});
