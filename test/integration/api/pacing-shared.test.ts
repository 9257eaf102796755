import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/create-api-client.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { startCompetingClient } from './competing-client.js';
import { fetchSandboxStats } from './sandbox-stats.js';

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
  it('completes every request while the other spends half the budget, and 429s stay rare', async () => {
    const other = startCompetingClient(sandbox.baseUrl, (WINDOW_S * 1000) / (LIMIT / 2)); // half the budget;
    await sleep(1_000); // the other one is already running when we start
    const results = await Promise.all(Array.from({ length: 60 }, () => client.api.me()));
    await other.stop();

    expect(results).toHaveLength(60);
    expect(results.every((r) => typeof r.id === 'string')).toBe(true);
    const ours = client.stats();
    expect(ours.byStatus['200']).toBe(60);
    const server = await fetchSandboxStats(sandbox.origin);
    const limited = server.by_status['429'] ?? 0;
    // Rare: at most 3% of everything the IP sent, ours and the other's together.
    expect(limited).toBeLessThanOrEqual(Math.floor(server.total * 0.03));
    expect(ours.rateLimited).toBeLessThanOrEqual(1);
    // The other client kept its pace: it was not starved by us.
    expect(other.counts.ok).toBeGreaterThan(40);
  });
});
