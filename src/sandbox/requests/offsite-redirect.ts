import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Quirks } from '../deployment/quirks.js';

/** offsite-redirect: the path whose GET is sent to another origin. */
export const OFFSITE_PATH = '/v1/holidays';

/**
 * onRequest, before the limiter (a web server in front of the API answers it):
 * under `offsite-redirect`, GET /v1/holidays answers 302 to the same path, query
 * kept, on another origin (./offsite-origin.ts), as a deployment that moved
 * its hours and holidays to another host, or a misconfigured proxy, would.
 */
export function offsiteRedirectHook(quirks: Quirks, offsiteOrigin: string | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!quirks.has('offsite-redirect') || offsiteOrigin === undefined || request.method !== 'GET') return;
    const url = request.originalUrl;
    const at = url.indexOf('?');
    const path = at < 0 ? url : url.slice(0, at);
    if (path !== OFFSITE_PATH) return;
    return reply.code(302).header('location', `${offsiteOrigin}${url}`).send();
  };
}
