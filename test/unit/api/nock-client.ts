import nock from 'nock';
import { type ApiClient, type ApiClientOptions, createApiClient } from '../../../src/api/create-api-client.js';
import { FakeClock } from './fake-clock.js';

export const ORIGIN = 'https://api.example.test';
export const BASE = `${ORIGIN}/v1`;
export const TOKEN = 'hs_pat_Zx9SECRETtoken0123456789';

export interface TestClient {
  client: ApiClient;
  clock: FakeClock;
  close(): void;
}

/** nock 14: no real network, loopback allowed (common rules). */
export function blockNetwork(): void {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
}

/** A client on a fake clock that advances by itself whenever the process is idle. */
export function testClient(options: Partial<ApiClientOptions> = {}): TestClient {
  const clock = new FakeClock();
  const stop = clock.autoAdvance();
  const client = createApiClient({
    baseUrl: BASE,
    token: TOKEN,
    clock,
    requestsPerMinute: 6_000,
    retry: { baseDelayMs: 100, maxDelayMs: 1_000 },
    ...options,
  });
  return {
    client,
    clock,
    close() {
      stop();
      client.close();
    },
  };
}

/** Captures what a promise rejects with. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}
