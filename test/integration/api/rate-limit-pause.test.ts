import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/create-api-client.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { fetchSandboxStats } from './sandbox-stats.js';

// The sandbox's clock stands still: its window ends only when the test moves the clock, so the
// queue's behaviour on a 429 is observed over real sockets without depending on timing.
let sandbox: RunningSandbox;
let client: ApiClient;

beforeAll(async () => {
  sandbox = await startSandbox({
    rateLimit: 5,
    rateWindowSeconds: 1,
    conversations: 10,
    seed: 5,
    now: () => new Date('2026-11-20T10:00:00Z'),
  });
  // No window configured: the queue has to learn it.
  client = createApiClient({ baseUrl: sandbox.baseUrl, token: 'sandbox-admin', requestsPerMinute: 600 });
});

afterAll(async () => {
  client?.close();
  await sandbox?.close();
});

describe('RequestQueue on a 429 over real sockets', () => {
  it('pauses every request for Retry-After, learns the window from it, and completes once the window is new', async () => {
    const work = Promise.all(Array.from({ length: 8 }, () => client.api.me()));
    // Wait until the server has answered the 429, then end its window.
    for (let i = 0; i < 500 && ((await fetchSandboxStats(sandbox.origin)).by_status['429'] ?? 0) === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    sandbox.clock.advance(1_000);
    const results = await work;

    expect(results.every((r) => typeof r.id === 'string')).toBe(true);
    const server = await fetchSandboxStats(sandbox.origin);
    const ours = client.stats();
    expect(server.by_status['429']).toBe(1);
    expect(ours).toMatchObject({ requests: 9, rateLimited: 1, retries: 1 });
    expect(ours.byStatus).toEqual({ '200': 8, '429': 1 });
    // The pause is the server's Retry-After (1 s), not a guess: at most that long, ending earlier
    // only at the window's known end, which lies within the Retry-After's last (rounded-up) second.
    expect(ours.rateLimitPausedMs).toBeGreaterThan(0);
    expect(ours.rateLimitPausedMs).toBeLessThanOrEqual(1_000);
    expect(client.queue.rateWindow()).toEqual({ ms: 1_000, source: 'learned' });
  });
});
