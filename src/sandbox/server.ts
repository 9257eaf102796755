import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { FaultInjector } from './deployment/faults.js';
import type { RateLimiter } from './deployment/rate-limit.js';
import { registerHoursRoutes } from './hours/register.js';
import type { SandboxClock } from './model/clock.js';
import { hash32, Rng } from './model/random.js';
import { authHook, callerOf, isAdmin } from './requests/auth.js';
import { errorHandler } from './requests/error-handler.js';
import { gateHook, statsHook } from './requests/gate.js';
import { registerJsonBody } from './requests/json-body.js';
import { offsiteRedirectHook } from './requests/offsite-redirect.js';
import { redirectHook, slashRewrite } from './requests/redirect-quirk.js';
import { RouteTable } from './requests/route-table.js';
import type { StatsRecorder } from './requests/stats.js';
import { registerApiRoutes } from './routes/register-api-routes.js';
import { registerSandboxRoutes } from './routes/sandbox-routes.js';
import type { SandboxStore } from './store/sandbox-store.js';

export interface ServerDeps {
  store: SandboxStore;
  clock: SandboxClock;
  limiter: RateLimiter;
  faults: FaultInjector;
  stats: StatsRecorder;
  /** false: silent; true: fastify's default pino; a pino logger or pino options object. */
  logger: boolean | Logger | object;
  /** Under `offsite-redirect`: the other origin GET /v1/holidays is redirected to. */
  offsiteOrigin?: string;
}

function loggerOptions(logger: ServerDeps['logger']): Partial<FastifyServerOptions> {
  if (typeof logger === 'boolean') return { logger };
  if (typeof (logger as Logger).child === 'function' && typeof (logger as Logger).info === 'function') {
    return { loggerInstance: logger as Logger };
  }
  return { logger: logger as FastifyServerOptions['logger'] };
}

/** The whole sandbox app: /v1 (limiter, faults, auth, routes) and /_sandbox (stats, clock; no auth, no limits). */
export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const rewriteUrl = slashRewrite(deps.store.quirks);
  const app = Fastify({
    ...loggerOptions(deps.logger),
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
    bodyLimit: 1024 * 1024,
    ...(rewriteUrl ? { rewriteUrl } : {}),
  }) as unknown as FastifyInstance;
  app.decorateRequest('caller', undefined);
  app.decorateRequest('statsRoute', undefined);
  app.decorateRequest('statsRecorded', false);
  const routes = new RouteTable();
  routes.install(app);
  registerJsonBody(app);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(routes.notFoundHandler());
  // redirects: answered before the limiter, as a web server in front of the API would.
  app.addHook('onRequest', redirectHook(deps.store.quirks));
  app.addHook('onRequest', offsiteRedirectHook(deps.store.quirks, deps.offsiteOrigin));
  app.addHook('onRequest', gateHook({ ...deps, quirkRng: new Rng(hash32(deps.store.seed, 'quirks')) }));
  app.addHook('onResponse', statsHook(deps.stats, deps.store));

  const ctx = { store: deps.store, clock: deps.clock };
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', authHook(deps.store));
      registerApiRoutes(v1, ctx);
      registerHoursRoutes(v1, {
        caller: (req) => {
          const caller = callerOf(req);
          return { organizationId: caller.organization.id, isAdmin: isAdmin(caller), isPat: caller.isPat };
        },
        organizations: () =>
          deps.store.world.organizations.map((o) => ({
            id: o.id,
            timezone: o.timezone,
            inboxIds: deps.store.inboxes(o.id).map((b) => b.id),
          })),
        // Whole seconds, like every other timestamp the sandbox stores.
        now: () => new Date(deps.store.now()),
        seed: deps.store.seed,
      });
    },
    { prefix: '/v1' },
  );
  registerSandboxRoutes(app, deps);
  return app;
}
