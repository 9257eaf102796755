import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/create-api-client.js';
import { collect } from '../../../src/api/endpoints/paginate.js';
import { RetriableApiError } from '../../../src/api/errors/errors.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { fetchSandboxStats } from './sandbox-stats.js';

const sandboxes: RunningSandbox[] = [];
const clients: ApiClient[] = [];

async function setup(faults: string): Promise<{ sandbox: RunningSandbox; client: ApiClient }> {
  const sandbox = await startSandbox({ rateLimit: 6_000, rateWindowSeconds: 60, conversations: 120, seed: 3, faults });
  sandboxes.push(sandbox);
  const client = createApiClient({
    baseUrl: sandbox.baseUrl,
    token: 'sandbox-admin',
    requestsPerMinute: 6_000,
    retry: { maxRetries: 8, baseDelayMs: 20, maxDelayMs: 200 },
  });
  clients.push(client);
  return { sandbox, client };
}

afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all(sandboxes.map((s) => s.close()));
});

describe('resilience against injected faults (sandbox --faults)', () => {
  let env: { sandbox: RunningSandbox; client: ApiClient };
  beforeAll(async () => {
    env = await setup('500:0.1,reset:0.05');
  });

  it('every idempotent request succeeds through 500s and connection resets', async () => {
    const { client, sandbox } = env;
    const conversations = await collect(client.api.searchConversations({ sort: 'oldest' }));
    expect(conversations.length).toBeGreaterThan(100); // two pages of POST /search, both retried as needed
    const ids = conversations.slice(0, 60).map((c) => String(c.id));
    const events = await Promise.all(ids.map((id) => client.api.listThreadEvents(id)));
    const views = await Promise.all(ids.map((id) => client.api.getConversation(id)));
    expect(events.every((e) => Array.isArray(e) && e.length > 0)).toBe(true);
    expect(views.map((v) => v?.id)).toEqual(ids);

    const server = await fetchSandboxStats(sandbox.origin);
    const injected = (server.by_status['500'] ?? 0) + (server.by_status.reset ?? 0);
    expect(injected).toBeGreaterThan(0);
    const ours = client.stats();
    expect(ours.retries).toBe(injected);
    expect(ours.requests).toBe(server.total);
  });
});

describe('writes under faults', () => {
  it('a POST that meets a 500 is not sent again', async () => {
    const { client, sandbox } = await setup('500:1');
    const error = await client.api
      .createHoliday({ name: 'Unsure', start_date: '2027-05-01', end_date: '2027-05-01' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetriableApiError);
    expect(error).toMatchObject({ code: 'API_SERVER', status: 500 });
    const server = await fetchSandboxStats(sandbox.origin);
    expect(server.by_route['POST /v1/holidays']).toEqual({ '500': 1 });
  });
});
