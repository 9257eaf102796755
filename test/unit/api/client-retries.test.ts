import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../../../src/api/endpoints/paginate.js';
import { FatalApiError, RetriableApiError } from '../../../src/api/errors/errors.js';
import { VERSION } from '../../../src/version.js';
import { BASE, blockNetwork, ORIGIN, rejection, type TestClient, TOKEN, testClient } from './nock-client.js';

let t: TestClient | undefined;
beforeAll(blockNetwork);
afterEach(() => {
  t?.close();
  t = undefined;
  nock.cleanAll();
});
afterAll(() => nock.enableNetConnect());

/** nock 14 needs an Error instance to fail the socket (a plain object leaves the request hanging). */
const connectionReset = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

/** Records the fake-clock time at which each request reached the server. */
function arrivals(clock: TestClient['clock']) {
  const at: number[] = [];
  return { at, mark: () => at.push(clock.now()) };
}

describe('client: requests', () => {
  it('sends bearer auth, JSON accept and the helpdesk-sync user agent', async () => {
    t = testClient();
    nock(ORIGIN, {
      reqheaders: {
        authorization: `Bearer ${TOKEN}`,
        accept: 'application/json',
        'user-agent': `helpdesk-sync/${VERSION}`,
      },
    })
      .get('/v1/me')
      .reply(200, { data: { id: 'u1', name: 'Ada' } });
    expect(await t.client.api.me()).toEqual({ id: 'u1', name: 'Ada' });
  });
});

describe('client: 429', () => {
  it('obeys Retry-After in seconds: the retry goes out exactly that much later', async () => {
    t = testClient();
    const seen = arrivals(t.clock);
    nock(ORIGIN)
      .get('/v1/me')
      .reply(() => {
        seen.mark();
        return [429, { message: 'Too Many Attempts.' }, { 'Retry-After': '30', 'X-RateLimit-Remaining': '0' }];
      })
      .get('/v1/me')
      .reply(() => {
        seen.mark();
        return [200, { data: { id: 'u1' } }];
      });
    expect(await t.client.api.me()).toEqual({ id: 'u1' });
    expect((seen.at[1] as number) - (seen.at[0] as number)).toBe(30_000);
    expect(t.client.stats()).toMatchObject({ requests: 2, retries: 1, rateLimited: 1, rateLimitPausedMs: 30_000 });
    expect(t.client.stats().byStatus).toEqual({ '200': 1, '429': 1 });
  });

  it('obeys Retry-After as an HTTP-date', async () => {
    t = testClient(); // the fake clock starts at 2026-07-30T10:00:00Z
    const seen = arrivals(t.clock);
    nock(ORIGIN)
      .get('/v1/me')
      .reply(() => {
        seen.mark();
        return [429, { message: 'Too Many Attempts.' }, { 'Retry-After': 'Thu, 30 Jul 2026 10:00:45 GMT' }];
      })
      .get('/v1/me')
      .reply(() => {
        seen.mark();
        return [200, { data: {} }];
      });
    await t.client.api.me();
    expect((seen.at[1] as number) - (seen.at[0] as number)).toBe(45_000);
  });

  it('retries a 429 that says nothing (no Retry-After, no rate headers) after a second, not a whole window', async () => {
    t = testClient({ rateWindowSeconds: 60 });
    const seen = arrivals(t.clock);
    nock(ORIGIN)
      .get('/v1/me')
      .reply(() => {
        seen.mark();
        return [429, { message: 'Too Many Attempts.' }];
      })
      .get('/v1/me')
      .reply(() => {
        seen.mark();
        return [200, { data: {} }];
      });
    await t.client.api.me();
    expect((seen.at[1] as number) - (seen.at[0] as number)).toBe(1_000);
  });

  it('slows down on a low X-RateLimit-Remaining before any 429 happens', async () => {
    t = testClient({ requestsPerMinute: 300, rateWindowSeconds: 60 });
    const seen = arrivals(t.clock);
    nock(ORIGIN)
      .get('/v1/me')
      .reply(() => {
        seen.mark();
        return [200, { data: {} }, { 'X-RateLimit-Limit': '300', 'X-RateLimit-Remaining': '1' }];
      })
      .get('/v1/me')
      .reply(() => {
        seen.mark();
        return [200, { data: {} }, { 'X-RateLimit-Limit': '300', 'X-RateLimit-Remaining': '299' }];
      });
    await t.client.api.me();
    await t.client.api.me();
    // One left, kept in reserve for the other clients of the IP: wait for the window to end.
    expect((seen.at[1] as number) - (seen.at[0] as number)).toBeGreaterThanOrEqual(60_000);
    expect(t.client.stats().rateLimited).toBe(0);
  });
});

describe('client: failures', () => {
  it('retries a GET after a connection reset', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/inboxes')
      .query(true)
      .replyWithError(connectionReset())
      .get('/v1/inboxes')
      .query({ per_page: '100' })
      .reply(200, [{ id: 'i1' }]);
    expect(await collect(t.client.api.listInboxes())).toEqual([{ id: 'i1' }]);
    expect(t.client.stats()).toMatchObject({ requests: 2, retries: 1, byStatus: { network: 1, '200': 1 } });
  });

  it('retries a GET after a 500, then succeeds', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/me')
      .reply(500, { message: 'Server Error' })
      .get('/v1/me')
      .reply(200, { data: { id: 'u' } });
    expect(await t.client.api.me()).toEqual({ id: 'u' });
    expect(t.client.stats()).toMatchObject({ requests: 2, retries: 1, byStatus: { '500': 1, '200': 1 } });
  });

  it('retries a response timeout as API_TIMEOUT (real socket on 127.0.0.1)', async () => {
    let calls = 0;
    const server = createServer((_req, res) => {
      calls += 1;
      if (calls === 1) return; // never answers: the response timeout must fire
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":1}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      t = testClient({ baseUrl: `http://127.0.0.1:${port}/v1`, responseTimeoutMs: 100 });
      expect(await t.client.api.me()).toEqual({ ok: 1 });
      expect(t.client.stats().byStatus).toEqual({ timeout: 1, '200': 1 });
      expect(calls).toBe(2);
    } finally {
      t?.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  // A proxy cutting a response short, an empty body, an HTML page with a 200: transient for a read (see Errors).
  it.each([
    ['cut short', '{"data": {"id": '],
    ['empty', ''],
    ['HTML', '<html><body>upstream reset</body></html>'],
  ])('retries a GET answered 200 with a body %s, like a 5xx, and counts it', async (_what, body) => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/me')
      .reply(200, body)
      .get('/v1/me')
      .reply(200, { data: { id: 'u' } });
    expect(await t.client.api.me()).toEqual({ id: 'u' });
    expect(t.client.stats()).toMatchObject({ requests: 2, retries: 1, byStatus: { '200': 2 } });
  });

  it('retries POST /search answered 200 with a body cut short', async () => {
    t = testClient();
    nock(ORIGIN)
      .post('/v1/search')
      .query(true)
      .reply(200, '{"data": {"conversations": ')
      .post('/v1/search')
      .query(true)
      .reply(200, { data: { conversations: { data: [{ id: 'c1' }] } } });
    expect(await collect(t.client.api.searchConversations({}))).toEqual([{ id: 'c1' }]);
    expect(t.client.stats()).toMatchObject({ requests: 2, retries: 1 });
  });

  it('fails a GET with API_BAD_RESPONSE once the retries are spent on unparseable bodies', async () => {
    t = testClient({ retry: { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1_000 } });
    nock(ORIGIN).get('/v1/me').times(3).reply(200, '{"data": {"id": ');
    const error = await rejection(t.client.api.me());
    expect(error).toBeInstanceOf(RetriableApiError);
    expect(error).toMatchObject({ code: 'API_BAD_RESPONSE', status: 200, method: 'GET', url: `${BASE}/me` });
    expect((error as RetriableApiError).body).toBe('{"data": {"id": ');
    expect(t.client.stats()).toMatchObject({ requests: 3, retries: 2 });
  });

  it('fails a write answered 200 with a malformed body at once, without retrying', async () => {
    t = testClient();
    nock(ORIGIN).post('/v1/holidays').reply(200, '{"data": {"id": ');
    const error = await rejection(t.client.api.createHoliday({ name: 'x', date: '2026-12-25' } as never));
    expect(error).toBeInstanceOf(FatalApiError);
    expect(error).toMatchObject({ code: 'API_BAD_RESPONSE', status: 200, method: 'POST' });
    expect(t.client.stats().requests).toBe(1);
  });

  it('never retries a non-idempotent POST after a 500 or a reset', async () => {
    t = testClient();
    const scope = nock(ORIGIN)
      .post('/v1/holidays')
      .reply(500, { message: 'Server Error (incident 0b8e8f9a-1c1e-4c55-9d59-1f0a3c7f9e11)' })
      .patch('/v1/holidays/h1')
      .replyWithError(connectionReset());
    const first = await rejection(
      t.client.api.createHoliday({ name: 'x', start_date: '2027-01-01', end_date: '2027-01-01' }),
    );
    expect(first).toBeInstanceOf(RetriableApiError);
    expect(first).toMatchObject({ code: 'API_SERVER', status: 500, requestId: '0b8e8f9a-1c1e-4c55-9d59-1f0a3c7f9e11' });
    const second = await rejection(t.client.api.updateHoliday('h1', { name: 'y' }));
    expect(second).toMatchObject({ code: 'API_NETWORK' });
    expect(scope.isDone()).toBe(true);
    expect(t.client.stats()).toMatchObject({ requests: 2, retries: 0 });
  });

  it('turns a 422 into API_VALIDATION carrying the API message and field errors', async () => {
    t = testClient();
    nock(ORIGIN)
      .patch('/v1/business-hours/b1', { name: '' })
      .reply(422, { message: 'The given data was invalid.', errors: { name: ['The name field is required.'] } });
    const error = await rejection(t.client.api.updateBusinessHours('b1', { name: '' }));
    expect(error).toBeInstanceOf(FatalApiError);
    expect(error).toMatchObject({
      code: 'API_VALIDATION',
      status: 422,
      apiMessage: 'The given data was invalid.',
      fieldErrors: { name: ['The name field is required.'] },
      method: 'PATCH',
      url: `${BASE}/business-hours/b1`,
    });
    expect(error.message).toContain('name: The name field is required.');
    expect(Object.keys(error)).not.toContain('body');
    expect((error as FatalApiError).body).toMatchObject({ errors: { name: ['The name field is required.'] } });
    expect(t.client.stats().requests).toBe(1);
  });

  it('maps 401, 403 and 409 to their stable codes', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/me')
      .reply(401, { message: 'Unauthenticated.' })
      .get('/v1/settings/users')
      .query(true)
      .reply(403, { message: 'Forbidden' })
      .post('/v1/holidays')
      .reply(409, { message: 'Conflict' });
    expect(await rejection(t.client.api.me())).toMatchObject({ code: 'API_UNAUTHORIZED', status: 401 });
    const users = t.client.api.read({ path: '/settings/users', paginator: 'pages' });
    expect(await rejection(collect(users))).toMatchObject({ code: 'API_FORBIDDEN', status: 403 });
    expect(await rejection(t.client.api.createHoliday({}))).toMatchObject({ code: 'API_CONFLICT', status: 409 });
  });

  it('aborts a request whose signal fires, without sending it', async () => {
    t = testClient();
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    expect((await rejection(t.client.api.me({ signal: controller.signal }))).message).toBe('shutting down');
    expect(t.client.stats().requests).toBe(0);
  });
});
