import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/create-api-client.js';
import { collect } from '../../../src/api/endpoints/paginate.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { fetchSandboxStats } from './sandbox-stats.js';

// A small window, as `helpdesk-sync sandbox --rate-limit 20 --rate-window 2` would serve. How fast
// and with how few 429s the queue gets through it is measured by `npm run bench -- pacing`.
const LIMIT = 20;
const WINDOW_S = 2;

let sandbox: RunningSandbox;
let client: ApiClient;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: LIMIT, rateWindowSeconds: WINDOW_S, conversations: 60, seed: 7 });
  client = createApiClient({
    baseUrl: sandbox.baseUrl,
    token: 'sandbox-admin',
    requestsPerMinute: (LIMIT / WINDOW_S) * 60,
    rateWindowSeconds: WINDOW_S,
    concurrency: 4,
  });
});

afterAll(async () => {
  client?.close();
  await sandbox?.close();
});

describe('RequestQueue against the sandbox, alone on the IP', () => {
  it('puts 60 requests of every kind through the queue, each counted alike by the queue and the server', async () => {
    const conversations = await collect(client.api.searchConversations({ sort: 'oldest' }));
    expect(conversations.length).toBeGreaterThan(10);
    const ids = conversations.map((c) => String(c.id));
    const calls: Array<() => Promise<unknown>> = [];
    for (let i = 0; calls.length < 59; i++) {
      const id = ids[i % ids.length] as string;
      calls.push(
        [
          () => client.api.me(),
          () => client.api.getConversation(id),
          () => client.api.listThreadEvents(id),
          () => collect(client.api.listInboxes()),
        ][i % 4] as () => Promise<unknown>,
      );
    }
    // All at once: the queue, not the caller, decides when each goes out.
    const results = await Promise.all(calls.map((call) => call()));
    expect(results.every((r) => r !== null && r !== undefined)).toBe(true);

    const server = await fetchSandboxStats(sandbox.origin);
    const ours = client.stats();
    // Three windows' worth: the queue waited for budget rather than sending everything at once.
    expect(ours.byStatus['200']).toBe(60);
    expect(ours.waitedMs).toBeGreaterThan(0);
    expect(ours.requests).toBe(server.total);
    expect(ours.rateLimited).toBe(server.by_status['429'] ?? 0);
    expect(client.queue.rateWindow()).toEqual({ ms: 2_000, source: 'configured' });
  });
});
