import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Quirks } from '../deployment/quirks.js';

/**
 * redirects: paths that answer with a redirect to the same path with a trailing
 * slash (query kept), on the same origin, and are served there; the Location
 * absolute or relative, as web servers and frameworks write it.
 */
export const REDIRECTED_PATHS: Readonly<Record<string, { status: 301 | 307 | 308; absolute: boolean }>> = {
  '/v1/inboxes': { status: 301, absolute: true },
  '/v1/settings/users': { status: 308, absolute: false },
  '/v1/search': { status: 307, absolute: true },
};

function split(url: string): { path: string; query: string } {
  const at = url.indexOf('?');
  return at < 0 ? { path: url, query: '' } : { path: url.slice(0, at), query: url.slice(at) };
}

/** Serves `/v1/inboxes/` (and the others) at their routes: the URL the router sees, without the slash. */
export function slashRewrite(quirks: Quirks): ((req: IncomingMessage) => string) | undefined {
  if (!quirks.has('redirects')) return undefined;
  return (req) => {
    const url = req.url ?? '/';
    const { path, query } = split(url);
    return path.endsWith('/') && Object.hasOwn(REDIRECTED_PATHS, path.slice(0, -1))
      ? `${path.slice(0, -1)}${query}`
      : url;
  };
}

/** onRequest: the redirect itself, for the path as the client asked it (before the rewrite). */
export function redirectHook(quirks: Quirks) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!quirks.has('redirects')) return;
    const { path, query } = split(request.originalUrl);
    const rule = REDIRECTED_PATHS[path];
    if (!rule) return;
    const target = `${path}/${query}`;
    const location = rule.absolute ? `${request.protocol}://${request.host}${target}` : target;
    return reply.code(rule.status).header('location', location).send();
  };
}
