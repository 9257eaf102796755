import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaultInjector } from './faults.js';
import type { RateLimiter } from './rate-limit.js';
import type { StatsRecorder } from './stats.js';
import type { SandboxStore } from './store/sandbox-store.js';

export const TOO_MANY_ATTEMPTS = 'Too Many Attempts.';

export function isApiPath(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');
}

/** Stats key: method plus route template ("GET /v1/conversation/:conversation_id/messages"). */
export function routeKey(request: FastifyRequest): string {
  const template = request.routeOptions.url ?? request.statsRoute ?? '(unmatched)';
  return `${request.method} ${template}`;
}

/** An injected 500 goes through the ordinary error handler, so it looks like any other incident. */
export class InjectedFaultError extends Error {
  constructor() {
    super('injected fault (500)');
    this.name = 'InjectedFaultError';
  }
}

interface GateDeps {
  store: SandboxStore;
  limiter: RateLimiter;
  faults: FaultInjector;
  stats: StatsRecorder;
}

/**
 * The root onRequest hook for /v1 (never /_sandbox): purge expired trash, then
 * the global limiter (API document, Limits: "Every request passes the global
 * limiter first"), then at most one injected fault. Authentication comes after.
 */
export function gateHook(deps: GateDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isApiPath(request.url)) return;
    deps.store.purgeExpired();
    const decision = deps.limiter.hit(request.ip);
    reply.header('x-ratelimit-limit', decision.limit).header('x-ratelimit-remaining', decision.remaining);
    if (!decision.allowed) {
      return reply.code(429).header('retry-after', decision.retryAfterSeconds).send({ message: TOO_MANY_ATTEMPTS });
    }
    const fault = deps.faults.draw();
    if (!fault) return;
    if (fault.kind === '500') throw new InjectedFaultError();
    if (fault.kind === '429') {
      reply.header('x-ratelimit-remaining', 0).header('retry-after', fault.param);
      return reply.code(429).send({ message: TOO_MANY_ATTEMPTS });
    }
    if (fault.kind === 'slow') {
      await sleep(fault.param);
      return;
    }
    deps.stats.record(routeKey(request), 'reset', request.ip);
    request.statsRecorded = true;
    reply.hijack();
    request.raw.socket.destroy();
    return reply;
  };
}

/** onResponse: counts every /v1 answer by route template, status and client IP. */
export function statsHook(stats: StatsRecorder) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isApiPath(request.url) || request.statsRecorded) return;
    stats.record(routeKey(request), String(reply.statusCode), request.ip);
  };
}
