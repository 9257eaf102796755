import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NOT_FOUND_MESSAGE } from '../protocol/errors.js';

interface KnownRoute {
  template: string;
  pattern: RegExp;
  methods: Set<string>;
}

function toPattern(template: string): RegExp {
  const escaped = template
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}/?$`);
}

/**
 * Remembers every route fastify registers (ours and any plugin's), so a known
 * path called with a verb it does not serve answers 405 with an Allow header
 * instead of 404 (API document, Errors rule 1: status not shown, 405 chosen).
 * Must be installed before any route is registered.
 */
export class RouteTable {
  private readonly routes = new Map<string, KnownRoute>();

  install(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      let known = this.routes.get(route.url);
      if (!known) {
        known = { template: route.url, pattern: toPattern(route.url), methods: new Set() };
        this.routes.set(route.url, known);
      }
      for (const m of methods) known.methods.add(m.toUpperCase());
    });
  }

  /** The routes whose template matches this path (any verb). */
  match(path: string): KnownRoute[] {
    return [...this.routes.values()].filter((r) => r.pattern.test(path));
  }

  /** Not-found handler: 405 for a known path, else 404; both with a `{message}` body. */
  notFoundHandler() {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.split('?')[0] ?? request.url;
      const known = this.match(path);
      if (known.length === 0) return reply.code(404).send({ message: NOT_FOUND_MESSAGE });
      const methods = new Set(known.flatMap((r) => [...r.methods]));
      if (methods.has('GET')) methods.add('HEAD');
      const allow = [...methods].sort().join(', ');
      request.statsRoute = known[0]!.template;
      return reply
        .code(405)
        .header('allow', allow)
        .send({
          message: `The ${request.method} method is not supported for this route. Supported methods: ${allow}.`,
        });
    };
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Route template for stats when fastify matched no route (405 answers). */
    statsRoute?: string;
    /** Set when stats were already counted (connection resets). */
    statsRecorded?: boolean;
  }
}
