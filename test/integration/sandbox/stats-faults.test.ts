import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFaults } from '../../../src/sandbox/deployment/faults.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call, findConversation } from './sandbox-client.js';

const running: RunningSandbox[] = [];
async function start(options: Parameters<typeof startSandbox>[0]) {
  const sb = await startSandbox({ conversations: 40, ...options });
  running.push(sb);
  return sb;
}
afterAll(async () => {
  await Promise.all(running.map((sb) => sb.close()));
});

/** Outcome of each of `n` requests: the status, or "reset" when the connection was cut. */
async function outcomes(sb: RunningSandbox, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    try {
      out.push(String((await call(sb, 'GET', '/me')).status));
    } catch {
      out.push('reset');
    }
  }
  return out;
}

describe('sandbox stats', () => {
  it("counts by status, by route template, by client IP and by the token's organization; reset clears them", async () => {
    const sb = await start({ seed: 2 });
    const id = findConversation(sb, () => true).id;
    await call(sb, 'GET', `/conversation/${id}/messages`);
    await call(sb, 'GET', `/conversation/${id}/messages`);
    await call(sb, 'GET', '/me', { token: null });
    await call(sb, 'PUT', '/me');
    await call(sb, 'GET', '/nothing-here');
    const stats = (await call(sb, 'GET', '/_sandbox/stats', { token: null })).body;
    expect(stats).toEqual({
      total: 5,
      by_status: { '200': 2, '401': 1, '405': 1, '404': 1 },
      by_route: {
        'GET /v1/conversation/:conversation_id/messages': { '200': 2 },
        'GET /v1/me': { '401': 1 },
        'PUT /v1/me': { '405': 1 },
        'GET (unmatched)': { '404': 1 },
      },
      by_ip: { '127.0.0.1': { total: 5, '200': 2, '401': 1, '405': 1, '404': 1, '429': 0 } },
      // The request without a token has no organization.
      by_organization: { acme: { total: 4, '200': 2, '405': 1, '404': 1, '429': 0 } },
    });
    expect(sb.stats()).toEqual(stats);
    expect((await call(sb, 'POST', '/_sandbox/stats/reset', { token: null })).status).toBe(200);
    expect(sb.stats()).toEqual({ total: 0, by_status: {}, by_route: {}, by_ip: {}, by_organization: {} });
    await call(sb, 'GET', '/me');
    sb.resetStats();
    expect(sb.stats().total).toBe(0);
  });
});

describe('sandbox fault injection', () => {
  it('rejects a bad spec with a message naming the item', () => {
    expect(() => parseFaults('500:2')).toThrow(/500:2.*probability/);
    expect(() => parseFaults('boom:0.1')).toThrow(/kind must be one of/);
    expect(() => parseFaults('500:0.6,reset:0.6')).toThrow(/more than 1/);
    expect(() => parseFaults('slow:0.1:abc')).toThrow(/param/);
    expect(parseFaults('500:0.05,reset:0.02,slow:0.05:2000,429:0.02')).toEqual([
      { kind: '500', probability: 0.05, param: 0 },
      { kind: 'reset', probability: 0.02, param: 0 },
      { kind: 'slow', probability: 0.05, param: 2000 },
      { kind: '429', probability: 0.02, param: 1 },
    ]);
  });

  it('draws the same faults for the same seed, counts them in stats, and never touches /_sandbox', async () => {
    const spec = '500:0.2,reset:0.2,429:0.2:7';
    const a = await start({ seed: 11, faults: spec });
    const b = await start({ seed: 11, faults: spec });
    const c = await start({ seed: 12, faults: spec });
    const [ra, rb, rc] = [await outcomes(a, 40), await outcomes(b, 40), await outcomes(c, 40)];
    expect(ra).toEqual(rb);
    expect(ra).not.toEqual(rc);
    for (const kind of ['200', '500', 'reset', '429']) expect(ra).toContain(kind);
    const stats = a.stats();
    expect(stats.total).toBe(40);
    for (const kind of ['200', '500', 'reset', '429']) {
      expect(stats.by_status[kind]).toBe(ra.filter((o) => o === kind).length);
    }
    expect(stats.by_ip['127.0.0.1']!['429']).toBe(ra.filter((o) => o === '429').length);
    // Injected answers and cut connections count under the token's organization too.
    expect(stats.by_organization.acme).toEqual(stats.by_ip['127.0.0.1']);
    for (let i = 0; i < 20; i++) expect((await call(a, 'GET', '/_sandbox/stats', { token: null })).status).toBe(200);
  });

  it('injected 429 carries Retry-After = param; injected 500 hides the stack and logs an incident id', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const e500 = await start({ seed: 1, faults: '500:1', logger: pino({ level: 'info' }, sink) });
    const res = await call(e500, 'GET', '/me');
    expect(res.status).toBe(500);
    const incident = /^Server Error \(incident ([0-9a-f-]{36})\)$/.exec(res.body.message)?.[1];
    expect(incident).toBeDefined();
    expect(Object.keys(res.body)).toEqual(['message']);
    expect(JSON.stringify(res.body)).not.toMatch(/at |stack/);
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.incident_id === incident);
    expect(logged?.err?.stack).toContain('InjectedFaultError');

    const e429 = await start({ seed: 1, faults: '429:1:7' });
    const limited = await call(e429, 'GET', '/me');
    expect([limited.status, limited.headers.get('retry-after'), limited.body]).toEqual([
      429,
      '7',
      { message: 'Too Many Attempts.' },
    ]);
  });

  it('the slow fault holds the response back by at least its parameter, then answers normally', async () => {
    // A lower bound only: a timer never fires before its delay (Node rounds to
    // the millisecond, hence the 2 ms allowance), and a loaded machine can only
    // make the answer later, so this cannot fail by chance; without the fault's
    // delay it fails, as an unfaulted /me answers in a few milliseconds.
    const DELAY_MS = 400;
    const plain = await start({ seed: 1 });
    const slow = await start({ seed: 1, faults: `slow:1:${DELAY_MS}` });
    const started = performance.now();
    const answer = await call(slow, 'GET', '/me');
    const elapsed = performance.now() - started;
    expect(answer.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(DELAY_MS - 2);
    // Delayed, not altered: the same body as from a sandbox without faults.
    expect(answer.body).toEqual((await call(plain, 'GET', '/me')).body);
  });
});
