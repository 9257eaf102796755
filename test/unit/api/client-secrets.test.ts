import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import nock from 'nock';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../../../src/api/endpoints/paginate.js';
import { ApiError } from '../../../src/api/errors/errors.js';
import { createLogger } from '../../../src/log.js';
import { BASE, blockNetwork, ORIGIN, rejection, type TestClient, TOKEN, testClient } from './nock-client.js';

let t: TestClient | undefined;
beforeAll(blockNetwork);
afterEach(() => {
  t?.close();
  t = undefined;
  nock.cleanAll();
});
afterAll(() => nock.enableNetConnect());

function sink() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/** Every way an error reaches a log or a file. */
function renderings(error: Error): Record<string, string> {
  const bare = sink();
  pino({ level: 'info' }, bare.stream).error({ err: error }, 'request failed');
  pino({ level: 'info' }, bare.stream).error(error);
  const ours = sink();
  createLogger({ destination: ours.stream }).error({ err: error }, 'request failed');
  const cause = (error as { cause?: Error }).cause;
  return {
    message: error.message,
    stack: error.stack ?? '',
    string: String(error),
    json: JSON.stringify(error),
    inspect: inspect(error, { showHidden: true, depth: Number.POSITIVE_INFINITY }),
    body: JSON.stringify((error as ApiError).body ?? null),
    causeStack: cause?.stack ?? '',
    pinoBare: bare.text(),
    pinoProject: ours.text(),
  };
}

function expectNoToken(error: Error): void {
  expect(error).toBeInstanceOf(ApiError);
  for (const [where, text] of Object.entries(renderings(error))) {
    expect(text.includes(TOKEN), `token found in ${where}`).toBe(false);
    expect(/Bearer\s+(?!\[REDACTED\])\S/.test(text), `bearer value found in ${where}`).toBe(false);
  }
}

describe('no error can leak the token', () => {
  it('a 401 whose body echoes the token and the Authorization header', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/me')
      .reply(401, {
        message: `Token ${TOKEN} is revoked`,
        errors: { authorization: [`Bearer ${TOKEN}`] },
        echo: { headers: { Authorization: `Bearer ${TOKEN}` } },
      });
    const error = await rejection(t.client.api.me());
    expect(error).toMatchObject({ code: 'API_UNAUTHORIZED', apiMessage: 'Token [REDACTED] is revoked' });
    expectNoToken(error);
  });

  it('a 422 with field errors', async () => {
    t = testClient();
    nock(ORIGIN)
      .post('/v1/holidays')
      .reply(422, { message: 'The given data was invalid.', errors: { name: [`bad name ${TOKEN}`] } });
    const error = await rejection(t.client.api.createHoliday({ name: TOKEN }));
    expect((error as ApiError).fieldErrors).toEqual({ name: ['bad name [REDACTED]'] });
    expectNoToken(error);
  });

  it('a connection reset (got keeps the request headers on its own error)', async () => {
    t = testClient({ retry: { maxRetries: 0 } });
    nock(ORIGIN)
      .get('/v1/me')
      .replyWithError(Object.assign(new Error(`socket hang up for Bearer ${TOKEN}`), { code: 'ECONNRESET' }));
    const error = await rejection(t.client.api.me());
    expect(error).toMatchObject({ code: 'API_NETWORK' });
    expect((error as Error & { cause?: { code?: string } }).cause?.code).toBe('ECONNRESET');
    expectNoToken(error);
  });

  it('a refused connection', async () => {
    t = testClient({ baseUrl: 'http://127.0.0.1:9/v1', retry: { maxRetries: 0 } });
    const error = await rejection(t.client.api.me());
    expect(error).toMatchObject({ code: 'API_NETWORK' });
    expectNoToken(error);
  });

  it('a malformed body that contains the token', async () => {
    t = testClient();
    // A read is retried on an unparseable body: every attempt gets the same one.
    nock(ORIGIN).get('/v1/me').times(6).reply(200, `{"token": "${TOKEN}", `);
    const error = await rejection(t.client.api.me());
    expect(error).toMatchObject({ code: 'API_BAD_RESPONSE' });
    expectNoToken(error);
  });

  it('a pagination loop', async () => {
    t = testClient();
    nock(ORIGIN)
      .get('/v1/settings/users')
      .query(true)
      .times(2)
      .reply(200, { data: [{ id: 'u' }], links: { next: `${BASE}/settings/users?page=1&per_page=100` } });
    const error = await rejection(collect(t.client.api.read({ path: '/settings/users', paginator: 'pages' })));
    expect(error).toMatchObject({ code: 'API_PAGINATION_LOOP' });
    expectNoToken(error);
  });

  it('an error built by hand with the token in every field', () => {
    const error = new ApiError({
      code: 'API_HTTP',
      method: 'GET',
      url: `${BASE}/x?access_token=${TOKEN}`,
      apiMessage: TOKEN,
      requestId: TOKEN,
      body: { nested: [{ deep: `Bearer ${TOKEN}` }] },
      cause: Object.assign(new Error(`failed with ${TOKEN}`), {
        options: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
      secrets: [TOKEN],
    });
    expectNoToken(error);
  });
});
