import type { FastifyInstance } from 'fastify';
import type { RateLimiter } from '../deployment/rate-limit.js';
import type { SandboxClock } from '../model/clock.js';
import { invalid } from '../protocol/errors.js';
import { BodyReader, isDateTime } from '../protocol/validate.js';
import type { StatsRecorder } from '../requests/stats.js';
import type { SandboxStore } from '../store/sandbox-store.js';

interface SandboxRouteDeps {
  store: SandboxStore;
  clock: SandboxClock;
  stats: StatsRecorder;
  limiter: RateLimiter;
}

/**
 * Outside /v1, no auth, no rate limit, no faults, not counted in stats:
 * GET /_sandbox/stats, POST /_sandbox/stats/reset, GET/POST /_sandbox/clock.
 */
export function registerSandboxRoutes(app: FastifyInstance, deps: SandboxRouteDeps): void {
  app.get('/_sandbox/stats', async () => deps.stats.snapshot());

  app.post('/_sandbox/stats/reset', async () => {
    deps.stats.reset();
    return { message: 'Stats reset.' };
  });

  app.get('/_sandbox/clock', async () => ({ now: deps.clock.now().toISOString() }));

  app.post('/_sandbox/clock', async (request) => {
    const body = new BodyReader(request.body, ['advance_seconds', 'set'], { required: true });
    const advance = body.body.advance_seconds;
    const set = body.body.set;
    if ((advance === undefined) === (set === undefined))
      body.add('body', 'Send exactly one of advance_seconds or set.');
    if (advance !== undefined && (typeof advance !== 'number' || !Number.isFinite(advance))) {
      body.add('advance_seconds', 'The advance_seconds field must be a number.');
    }
    if (set !== undefined && !isDateTime(set)) body.add('set', 'The set field must be an ISO 8601 date-time.');
    body.done();
    // Moving the clock purges expired trash (the store listens to the clock).
    const trashedBefore = deps.store.conversations.trashed.size;
    if (typeof advance === 'number') deps.clock.advance(advance * 1000);
    else if (typeof set === 'string') deps.clock.set(new Date(set));
    else throw invalid({ body: ['Nothing to do.'] });
    deps.store.purgeExpired();
    return { now: deps.clock.now().toISOString(), purged: trashedBefore - deps.store.conversations.trashed.size };
  });
}
