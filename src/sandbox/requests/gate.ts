import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaultInjector } from '../deployment/faults.js';
import type { RateLimiter } from '../deployment/rate-limit.js';
import type { Rng } from '../model/random.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import { organizationSlugOf } from './auth.js';
import { oddRetryAfterNow } from './odd-retry-after.js';
import type { StatsRecorder } from './stats.js';

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

/** What a reverse proxy in front of the API answers when the upstream is away (proxy-html-errors). */
function proxyPage(status: 502 | 503): string {
  const title = status === 502 ? '502 Bad Gateway' : '503 Service Temporarily Unavailable';
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}

/** Share of /v1 requests that meet a quirk's proxy page or bare 429. */
export const QUIRK_FAULT_RATE = 0.05;

interface GateDeps {
  store: SandboxStore;
  limiter: RateLimiter;
  faults: FaultInjector;
  stats: StatsRecorder;
  /** Draws for the proxy-html-errors, bare-429 and silent-429 quirks, seeded like the faults. */
  quirkRng: Rng;
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
    const { quirks } = deps.store;
    if (quirks.has('silent-429') && deps.quirkRng.chance(1 / quirks.silent429Every)) {
      // A gateway in front of the API refuses it before the API's limiter counts it, and says nothing:
      // no Retry-After, no X-RateLimit-*.
      return reply.code(429).send({ message: 'Too Many Requests' });
    }
    const odd = oddRetryAfterNow(deps.store);
    if (odd !== undefined) {
      // A gateway's 429 before the limiter counts it, its Retry-After filled in its own way.
      return reply.code(429).header('retry-after', odd).send({ message: TOO_MANY_ATTEMPTS });
    }
    const decision = deps.limiter.hit(request.ip);
    if (!quirks.has('no-rate-headers')) {
      reply.header('x-ratelimit-limit', decision.limit).header('x-ratelimit-remaining', decision.remaining);
    }
    if (!decision.allowed) {
      return reply.code(429).header('retry-after', decision.retryAfterSeconds).send({ message: TOO_MANY_ATTEMPTS });
    }
    const quirk = quirkFault(deps);
    if (quirk === 'proxy') {
      const status = deps.quirkRng.chance(0.5) ? 502 : 503;
      return reply.code(status).header('content-type', 'text/html').send(proxyPage(status));
    }
    if (quirk === 'bare-429') {
      // A 429 without Retry-After, or with an HTTP date (RFC 9110 allows both; the API document says seconds).
      // The date is the host's wall clock, as a real server's would be, not the sandbox clock.
      if (deps.quirkRng.chance(0.5)) {
        reply.header('retry-after', new Date(Math.ceil((Date.now() + 1000) / 1000) * 1000).toUTCString());
      }
      return reply.code(429).send({ message: TOO_MANY_ATTEMPTS });
    }
    const fault = deps.faults.draw();
    if (!fault) return;
    if (fault.kind === '500') throw new InjectedFaultError();
    if (fault.kind === '429') {
      if (!quirks.has('no-rate-headers')) reply.header('x-ratelimit-remaining', 0);
      reply.header('retry-after', fault.param);
      return reply.code(429).send({ message: TOO_MANY_ATTEMPTS });
    }
    if (fault.kind === 'slow') {
      await sleep(fault.param);
      return;
    }
    deps.stats.record(routeKey(request), 'reset', request.ip, organizationSlugOf(deps.store, request));
    request.statsRecorded = true;
    reply.hijack();
    request.raw.socket.destroy();
    return reply;
  };
}

function quirkFault(deps: GateDeps): 'proxy' | 'bare-429' | undefined {
  const { quirks } = deps.store;
  if (quirks.has('proxy-html-errors') && deps.quirkRng.chance(QUIRK_FAULT_RATE)) return 'proxy';
  if (quirks.has('bare-429') && deps.quirkRng.chance(QUIRK_FAULT_RATE)) return 'bare-429';
  return undefined;
}

/** onResponse: counts every /v1 answer by route template, status, client IP and the token's organization. */
export function statsHook(stats: StatsRecorder, store: SandboxStore) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isApiPath(request.url) || request.statsRecorded) return;
    stats.record(routeKey(request), String(reply.statusCode), request.ip, organizationSlugOf(store, request));
  };
}
