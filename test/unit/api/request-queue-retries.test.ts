import { afterEach, describe, expect, it } from 'vitest';
import { errorFromNetwork } from '../../../src/api/errors/error-from-response.js';
import { FatalApiError } from '../../../src/api/errors/errors.js';
import { closeHarnesses, harnessWith, ok, settleAll, status } from './queue-harness.js';

afterEach(closeHarnesses);

describe('RequestQueue on 429 (fake clock)', () => {
  it('pauses the whole queue for exactly Retry-After, then retries that request first', async () => {
    const h = harnessWith({ requestsPerMinute: 6_000, concurrency: 1 });
    h.script('a', status(429, { 'retry-after': '30' }), ok());
    const results = [h.send('a'), h.send('b'), h.send('c')];
    await settleAll(h.clock, results);
    const [first, retry, b, c] = h.starts;
    expect(h.starts.map((s) => s.name)).toEqual(['a', 'a', 'b', 'c']);
    expect((retry?.at as number) - (first?.at as number)).toBe(30_000); // no jitter on a server-given wait
    // No pacing left between them: b and c start once the retry has gone, in order.
    expect(b?.at).toBe(retry?.at as number);
    expect(c?.at).toBe(retry?.at as number);
    const stats = h.queue.stats();
    expect(stats).toMatchObject({ requests: 4, retries: 1, rateLimited: 1, byStatus: { '200': 3, '429': 1 } });
    expect(stats.rateLimitPausedMs).toBe(30_000);
  });

  it('holds requests already waiting at the gate too (concurrency 4)', async () => {
    const h = harnessWith({ requestsPerMinute: 6_000, concurrency: 4 });
    h.script('a', status(429, { 'retry-after': '10' }), ok());
    const results = ['a', 'b', 'c', 'd', 'e'].map((n) => h.send(n));
    await settleAll(h.clock, results);
    const t429 = h.starts[0]?.at as number;
    // 'b' may have started before the 429 came back; nothing starts during the pause.
    const during = h.starts.filter((s) => s.at > t429 && s.at < t429 + 10_000);
    expect(during).toEqual([]);
    const after = h.starts.filter((s) => s.at >= t429 + 10_000).map((s) => s.name);
    expect(after[0]).toBe('a');
  });

  it('never gives up on 429s: thirty in a row are thirty waits, and none uses up the retries meant for faults', async () => {
    const h = harnessWith({ retry: { maxRetries: 1 } });
    h.script('a', ...Array.from({ length: 30 }, () => status(429, { 'retry-after': '2' })), status(500), ok());
    const result = h.send('a');
    await h.clock.run();
    expect((await result).status).toBe(200);
    // 30 429s waited for, then the 500 took the one fault retry.
    expect(h.starts).toHaveLength(32);
    expect(h.queue.stats()).toMatchObject({ rateLimited: 30, retries: 31, rateLimitPausedMs: 60_000 });
  });

  it('does not believe a Retry-After above maxRetryAfterMs: probes after a second instead of failing', async () => {
    const h = harnessWith({ retry: { maxRetryAfterMs: 60_000 } });
    h.script('a', status(429, { 'retry-after': '3600' }), ok());
    const result = h.send('a');
    await h.clock.run();
    expect((await result).status).toBe(200);
    const [first, retry] = h.starts;
    expect((retry?.at as number) - (first?.at as number)).toBe(1_000);
  });

  it('ends the wait of a request whose signal aborts during a 429 pause (a run deadline)', async () => {
    const h = harnessWith();
    h.script('a', status(429, { 'retry-after': '30' }));
    const controller = new AbortController();
    const result = h.send('a', { signal: controller.signal }).catch((e: unknown) => e);
    await h.clock.settle();
    controller.abort(new Error('deadline'));
    expect(await result).toMatchObject({ message: 'deadline' });
    expect(h.starts).toHaveLength(1);
  });

  it('retries a write after a 429: the limiter answers before the request is handled (see Limits)', async () => {
    const h = harnessWith();
    h.script('w', status(429, { 'retry-after': '2' }), { status: 201, headers: {}, body: '{}' });
    const result = h.send('w', { method: 'POST' });
    await h.clock.run();
    expect((await result).status).toBe(201);
  });
});

describe('RequestQueue on 5xx and network errors (fake clock)', () => {
  const net = (code: string) =>
    errorFromNetwork(Object.assign(new Error(code), { code }), { code }, { method: 'GET', url: 'https://x.test/v1/a' });

  it('retries an idempotent request with capped exponential backoff', async () => {
    const h = harnessWith({ retry: { baseDelayMs: 1_000, maxDelayMs: 4_000, maxRetries: 4 } });
    h.script('a', status(500), status(503), net('ECONNRESET'), status(502), ok());
    const result = h.send('a');
    await h.clock.run();
    expect((await result).status).toBe(200);
    // random() = 0.5: 3/4 of each step; steps 1000, 2000, 4000, 4000 (capped).
    expect(h.clock.sleeps.filter((ms) => ms >= 750)).toEqual([750, 1_500, 3_000, 3_000]);
    expect(h.queue.stats()).toMatchObject({ requests: 5, retries: 4, byStatus: { '500': 1, '503': 1, network: 1 } });
  });

  it('gives up after maxRetries with the last typed error', async () => {
    const h = harnessWith({ retry: { maxRetries: 2, baseDelayMs: 10 } });
    h.script('a', status(500), status(500), status(500), ok());
    const result = h.send('a').catch((e: unknown) => e);
    await h.clock.run();
    expect(await result).toMatchObject({ code: 'API_SERVER', status: 500 });
    expect(h.starts).toHaveLength(3);
  });

  it('never retries a non-idempotent write after a 5xx or a reset', async () => {
    const h = harnessWith();
    h.script('w1', status(500), ok());
    h.script('w2', net('ECONNRESET'), ok());
    const r1 = h.send('w1', { method: 'POST' }).catch((e: unknown) => e);
    const r2 = h.send('w2', { method: 'PATCH' }).catch((e: unknown) => e);
    await h.clock.run();
    expect(await r1).toMatchObject({ code: 'API_SERVER' });
    expect(await r2).toMatchObject({ code: 'API_NETWORK' });
    expect(h.starts.map((s) => s.name)).toEqual(['w1', 'w2']);
  });

  it('retries a write whose connection was refused: it never reached the server', async () => {
    const h = harnessWith();
    h.script('w', net('ECONNREFUSED'), ok());
    const result = h.send('w', { method: 'POST' });
    await h.clock.run();
    expect((await result).status).toBe(200);
    expect(h.starts).toHaveLength(2);
  });

  it('does not retry fatal statuses', async () => {
    const h = harnessWith();
    h.script('a', status(404), ok());
    const result = h.send('a').catch((e: unknown) => e);
    await h.clock.run();
    expect(await result).toBeInstanceOf(FatalApiError);
    expect(h.starts).toHaveLength(1);
  });

  it('obeys a Retry-After on a 5xx instead of its own backoff', async () => {
    const h = harnessWith();
    h.script('a', status(503, { 'retry-after': '7' }), ok());
    const result = h.send('a');
    await h.clock.run();
    await result;
    expect(h.clock.sleeps).toContain(7_000);
  });
});
