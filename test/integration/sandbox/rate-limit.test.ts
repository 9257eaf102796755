import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call } from './sandbox-client.js';

// Each test has its own sandbox, so its window starts empty whatever ran before.
let sb: RunningSandbox;
beforeEach(async () => {
  sb = await startSandbox({
    seed: 1,
    conversations: 50,
    rateLimit: 3,
    rateWindowSeconds: 10,
    now: () => new Date('2026-11-20T10:00:00Z'),
  });
});
afterEach(() => sb.close());

describe('sandbox rate limit (fixed window per client IP)', () => {
  it('counts down X-RateLimit-Remaining, then answers 429 with Retry-After until the window ends', async () => {
    const seen: Array<[number, string | null, string | null]> = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(sb, 'GET', '/me');
      seen.push([res.status, res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining')]);
    }
    expect(seen).toEqual([
      [200, '3', '2'],
      [200, '3', '1'],
      [200, '3', '0'],
    ]);
    sb.clock.advance(2_500);
    const limited = await call(sb, 'GET', '/me');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: 'Too Many Attempts.' });
    // 7.5 s left in the window: whole seconds, rounded up.
    expect(limited.headers.get('retry-after')).toBe('8');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');

    // Unauthenticated requests and unknown paths pass the limiter first, so they are throttled too.
    expect((await call(sb, 'GET', '/me', { token: null })).status).toBe(429);
    expect((await call(sb, 'GET', '/no-such-path')).status).toBe(429);

    // /_sandbox/* is exempt.
    const stats = await call(sb, 'GET', '/_sandbox/stats', { token: null });
    expect(stats.status).toBe(200);
    expect(stats.headers.get('x-ratelimit-limit')).toBeNull();
    expect(stats.body.by_status['429']).toBe(3);
    expect(stats.body.by_ip['127.0.0.1']).toMatchObject({ total: 6, '429': 3, '200': 3 });
    expect(stats.body.by_route['GET /v1/me']).toEqual({ '200': 3, '429': 2 });

    sb.clock.advance(7_500);
    const next = await call(sb, 'GET', '/me');
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('moves the window with POST /_sandbox/clock as well', async () => {
    for (let i = 0; i < 3; i++) expect((await call(sb, 'GET', '/inboxes')).status).toBe(200);
    expect((await call(sb, 'GET', '/inboxes')).status).toBe(429);
    const moved = await call(sb, 'POST', '/_sandbox/clock', { token: null, body: { advance_seconds: 10 } });
    expect(moved.status).toBe(200);
    expect(moved.body.now).toBe(sb.clock.now().toISOString());
    expect((await call(sb, 'GET', '/inboxes')).status).toBe(200);
  });
});
