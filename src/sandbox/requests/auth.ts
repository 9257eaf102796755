import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../model/caller.js';
import { forbidden, PAT_ONLY_MESSAGE, SandboxHttpError } from '../protocol/errors.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import { grantOf } from './tokens.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
  interface FastifyContextConfig {
    /** The route accepts only a personal access token (API document, Endpoints: "PAT only"). */
    patOnly?: boolean;
    /** Scope the token must carry (API document, Authentication rule 5). */
    scope?: string;
  }
}

const UNAUTHENTICATED = 'Unauthenticated.';

export function resolveCaller(store: SandboxStore, header: string | undefined): Caller | undefined {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  const grant = token === undefined ? undefined : grantOf(store, token);
  if (!grant) return undefined;
  const user = store.world.users[grant.userIndex]!;
  const organization = store.organization(user.organizationId)!;
  return { user, organization, isPat: grant.isPat, scopes: grant.scopes };
}

/**
 * The /v1 onRequest hook after the limiter: 401 for a missing or unknown token,
 * then 403 for the partner token on a PAT-only route or a missing scope
 * (API document, Authentication rules 3, 5, 6, 7).
 */
export function authHook(store: SandboxStore) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = resolveCaller(store, request.headers.authorization);
    if (!caller) return reply.code(401).send({ message: UNAUTHENTICATED });
    request.caller = caller;
    const config = request.routeOptions.config;
    if (config.patOnly && !caller.isPat) throw forbidden(PAT_ONLY_MESSAGE);
    if (config.scope && !caller.scopes.includes(config.scope)) {
      throw forbidden(`The token does not carry the ${config.scope} scope.`);
    }
  };
}

/**
 * The slug of the organization whose token the request carries, whether or not
 * the request got past the limiter to the token check; undefined without a valid token.
 */
export function organizationSlugOf(store: SandboxStore, request: FastifyRequest): string | undefined {
  return (request.caller ?? resolveCaller(store, request.headers.authorization))?.organization.slug;
}

export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new SandboxHttpError(401, UNAUTHENTICATED);
  return request.caller;
}

/** Account Owner or Administrator (used for business-hours and holiday writes). */
export function isAdmin(caller: Caller): boolean {
  return caller.user.role === 'Account Owner' || caller.user.role === 'Administrator';
}
