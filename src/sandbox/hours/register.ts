import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerBusinessHoursRoutes } from './business-hours-routes.js';
import { registerHolidayRoutes } from './holiday-routes.js';
import { HoursStore } from './hours-store.js';
import { createHoursSeeder } from './seed-hours.js';

export interface HoursDeps {
  /** The caller as the sandbox's auth hook resolved it (401 and rate limiting have already run). */
  caller(req: FastifyRequest): { organizationId: string; isAdmin: boolean; isPat: boolean };
  /** Every organization; the first one gets the richer seed. */
  organizations(): Array<{ id: string; timezone: string; inboxIds: string[] }>;
  /** The sandbox clock: timestamps, and "today" for holiday status. */
  now(): Date;
  seed: number;
}

/**
 * Registers the ten business-hours and holiday operations (API document,
 * Endpoints, Other operations) WITHOUT the /v1 prefix: call it inside the
 * fastify scope registered with `{ prefix: '/v1' }`, after the auth hook.
 * Data lives in memory, seeded per organization on first use, dated relative
 * to the clock at registration time.
 */
export function registerHoursRoutes(app: FastifyInstance, deps: HoursDeps): void {
  const store = new HoursStore(deps.seed, createHoursSeeder(deps.seed, deps.now()));
  const ctx = { store, caller: deps.caller, organizations: deps.organizations, now: deps.now };
  registerBusinessHoursRoutes(app, ctx);
  registerHolidayRoutes(app, ctx);
}
