import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call, findConversation } from './sandbox-client.js';

let sb: RunningSandbox;
let id: string;
beforeAll(async () => {
  sb = await startSandbox({ seed: 4, conversations: 80 });
  id = findConversation(sb, (s) => s.status === 'Active').id;
});
afterAll(() => sb.close());

describe('sandbox error bodies', () => {
  it('answers 422 {message, errors: {field: [..]}} listing every invalid field', async () => {
    const res = await call(sb, 'PATCH', `/conversation/${id}`, { body: { status: 'Open', tags: 'a', subject: 5 } });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('The given data was invalid.');
    expect(Object.keys(res.body.errors).sort()).toEqual(['status', 'subject', 'tags']);
    for (const messages of Object.values(res.body.errors)) {
      expect(messages).toEqual([expect.any(String)]);
    }
  });

  it('treats a field the endpoint does not know as a 422 naming that field', async () => {
    const res = await call(sb, 'POST', `/conversation/${id}/note`, { body: { message: 'hi', body: 'x' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ body: ['The field is not recognized.'] });
  });

  it('answers malformed JSON with 400 and a {message} body', async () => {
    const res = await call(sb, 'PATCH', `/conversation/${id}`, { rawBody: '{"status": ' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'The request body is not valid JSON.' });
  });

  it('answers a non-object JSON body and a wrong content type with a {message} body', async () => {
    const array = await call(sb, 'PATCH', `/conversation/${id}`, { body: [1, 2] });
    expect(array.status).toBe(422);
    expect(array.body.errors.body).toBeDefined();
    const res = await fetch(`${sb.baseUrl}/conversation/${id}`, {
      method: 'PATCH',
      headers: { authorization: 'Bearer sandbox-admin', 'content-type': 'text/plain' },
      body: 'status=Closed',
    });
    expect(res.status).toBe(415);
    expect(Object.keys((await res.json()) as object)).toEqual(['message']);
  });

  it('answers 405 with an Allow header for a known path with an unsupported verb, ours and the hours routes', async () => {
    for (const [method, path, allow] of [
      ['POST', '/me', 'GET, HEAD'],
      ['PUT', `/conversation/${id}/messages`, 'GET, HEAD'],
      ['GET', `/conversation/${id}/note`, 'POST'],
      ['DELETE', '/holidays', 'GET, HEAD, POST'],
      ['POST', '/business-hours/some-id', 'DELETE, GET, HEAD, PATCH'],
    ]) {
      const res = await call(sb, method!, path!);
      expect({ path, status: res.status, allow: res.headers.get('allow') }).toEqual({ path, status: 405, allow });
      expect(typeof res.body.message).toBe('string');
    }
    const unknown = await call(sb, 'GET', '/no/such/path');
    expect([unknown.status, unknown.body]).toEqual([404, { message: 'Not found.' }]);
  });

  it('answers 404 for an unknown conversation id of any shape', async () => {
    for (const bad of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const res = await call(sb, 'GET', `/conversation/${bad}`);
      expect([res.status, res.body]).toEqual([404, { message: 'Not found.' }]);
    }
  });
});
