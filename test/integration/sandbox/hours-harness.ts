import Fastify, { type FastifyInstance } from 'fastify';
import { registerHoursRoutes } from '../../../src/sandbox/hours/register.js';

/**
 * A bare fastify server carrying only the business-hours and holiday routes,
 * with a token table and a movable clock of its own, so the routes are tested
 * over a real socket independently of the rest of the sandbox.
 */
export interface HoursHarness {
  baseUrl: string;
  clock: { now(): Date; set(d: Date | string): void };
  inboxes: { org1: string[]; org2: string[] };
  request(method: string, path: string, options?: { token?: string; body?: unknown }): Promise<HarnessResponse>;
  close(): Promise<void>;
}

export interface HarnessResponse {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response shapes
  body: any;
}

const CALLERS: Record<string, { organizationId: string; isAdmin: boolean; isPat: boolean }> = {
  'sandbox-admin': { organizationId: 'org-1', isAdmin: true, isPat: true },
  'sandbox-agent': { organizationId: 'org-1', isAdmin: false, isPat: true },
  'sandbox-partner': { organizationId: 'org-1', isAdmin: true, isPat: false },
  'org2-admin': { organizationId: 'org-2', isAdmin: true, isPat: true },
};

const INBOXES = {
  org1: ['11111111-1111-4111-8111-000000000001', '11111111-1111-4111-8111-000000000002'],
  org2: ['22222222-2222-4222-8222-000000000001'],
};

export async function startHoursHarness(options: { seed?: number; now?: string } = {}): Promise<HoursHarness> {
  let now = new Date(options.now ?? '2026-11-20T10:00:00Z');
  const app: FastifyInstance = Fastify({ logger: false });
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', async (req, reply) => {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (!token || !CALLERS[token]) return reply.code(401).send({ message: 'Unauthenticated.' });
      });
      registerHoursRoutes(scope, {
        caller: (req) => CALLERS[/^Bearer (.+)$/.exec(req.headers.authorization ?? '')![1]!]!,
        organizations: () => [
          { id: 'org-1', timezone: 'Europe/Berlin', inboxIds: INBOXES.org1 },
          { id: 'org-2', timezone: 'America/New_York', inboxIds: INBOXES.org2 },
        ],
        now: () => now,
        seed: options.seed ?? 1,
      });
    },
    { prefix: '/v1' },
  );
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `${origin}/v1`;
  return {
    baseUrl,
    inboxes: INBOXES,
    clock: { now: () => now, set: (d) => (now = new Date(d)) },
    async request(method, path, { token = 'sandbox-admin', body } = {}) {
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    close: () => app.close(),
  };
}

/** A full business_hours schedule: weekdays `start`–`end`, weekend closed. */
export function weekdays(start: string, end: string) {
  return ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) =>
    day === 'saturday' || day === 'sunday' ? { day, start: null, end: null } : { day, start, end },
  );
}
