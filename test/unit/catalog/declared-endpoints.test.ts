import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../../src/catalog/catalog.js';
import { FaultInjector } from '../../../src/sandbox/deployment/faults.js';
import { RateLimiter } from '../../../src/sandbox/deployment/rate-limit.js';
import { createClock } from '../../../src/sandbox/model/clock.js';
import { StatsRecorder } from '../../../src/sandbox/requests/stats.js';
import { buildServer } from '../../../src/sandbox/server.js';
import { SandboxStore } from '../../../src/sandbox/store/sandbox-store.js';

/**
 * docs/architecture.md: a stream that reads an endpoint as a list needs nothing in src/ beyond
 * its declaration, and the sandbox stands in for the API. So every endpoint a declaration
 * reads must have its route in the sandbox (src/sandbox/routes/, src/sandbox/hours/), or the
 * demo and every test of that stream meet a 404. The sandbox's app is built as `sandbox` builds
 * it (no socket), and asked for each route.
 */
let app: FastifyInstance;

beforeAll(async () => {
  const clock = createClock();
  const store = new SandboxStore({ seed: 1, conversations: 0, clock });
  const limiter = new RateLimiter(300, 60_000, () => clock.now().getTime());
  app = await buildServer({
    store,
    clock,
    limiter,
    faults: new FaultInjector([], 1),
    stats: new StatsRecorder(),
    logger: false,
  });
  await app.ready();
});

afterAll(() => app?.close());

const endpoints = CATALOG.flatMap((stream) =>
  'endpoint' in stream.read ? [{ stream: stream.name, ...stream.read.endpoint }] : [],
);

describe('the endpoints the catalog declares', () => {
  it('are declared at all (a guard that reads none guards nothing)', () => {
    expect(endpoints.length).toBeGreaterThan(5);
  });

  it.each(endpoints.map((e) => [`${e.stream}: ${e.method} ${e.path}`, e] as const))(
    '%s has a route in the sandbox',
    (_, { method, path }) => {
      // The API document writes parameters as {inbox_id}, fastify as :inbox_id.
      const url = `/v1${path.replace(/\{(\w+)\}/g, ':$1')}`;
      expect(app.hasRoute({ method, url }), `${method} ${url}`).toBe(true);
    },
  );
});
