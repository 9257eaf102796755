import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/create-api-client.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { startCompetingClient } from './competing-client.js';
import { fetchSandboxStats } from './sandbox-stats.js';

// How much of the budget each client got, and their 429s, is measured by `npm run bench -- pacing`.
const LIMIT = 20;
const WINDOW_S = 2;

let sandbox: RunningSandbox;
let client: ApiClient;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: LIMIT, rateWindowSeconds: WINDOW_S, conversations: 30, seed: 11 });
  client = createApiClient({
    baseUrl: sandbox.baseUrl,
    token: 'sandbox-admin',
    requestsPerMinute: (LIMIT / WINDOW_S) * 60, // ours alone would use the whole budget
    rateWindowSeconds: WINDOW_S,
  });
});

afterAll(async () => {
  client?.close();
  await sandbox?.close();
});

describe('RequestQueue against the sandbox, sharing the IP with another client', () => {
  it('completes every request while the other keeps sending, and the server saw exactly what both counted', async () => {
    const other = startCompetingClient(sandbox.baseUrl, (WINDOW_S * 1000) / (LIMIT / 2)); // half the budget
    await sleep(500); // the other one is already running when we start
    const results = await Promise.all(Array.from({ length: 30 }, () => client.api.me()));
    await other.stop();

    expect(results.every((r) => typeof r.id === 'string')).toBe(true);
    const ours = client.stats();
    expect(ours.byStatus['200']).toBe(30);
    const server = await fetchSandboxStats(sandbox.origin);
    expect(server.total).toBe(ours.requests + other.counts.ok + other.counts.limited);
    expect(server.by_status['429'] ?? 0).toBe(ours.rateLimited + other.counts.limited);
    // The other client was not shut out.
    expect(other.counts.ok).toBeGreaterThan(0);
  });
});
