import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HoursOrganization, HoursStore } from './hours-store.js';

/** Who is calling, as the sandbox's auth layer resolved the bearer token. */
export interface HoursCaller {
  organizationId: string;
  isAdmin: boolean;
  isPat: boolean;
}

export interface HoursContext {
  store: HoursStore;
  caller(req: FastifyRequest): HoursCaller;
  organizations(): HoursOrganization[];
  now(): Date;
}

export const PAT_ONLY_MESSAGE = 'This action requires a personal access token.';
export const UNAUTHORIZED_MESSAGE = 'This action is unauthorized.';
export const NOT_FOUND_MESSAGE = 'Not found.';

/**
 * All ten business-hours and holiday operations are PAT only; writes are limited
 * to administrators and the account owner, reads are open to any teammate (API
 * document, Endpoints, Other operations). Answers 403 and returns undefined when
 * the caller may not go on; otherwise returns the caller's (seeded) organization.
 */
export function authorize(
  ctx: HoursContext,
  req: FastifyRequest,
  reply: FastifyReply,
  write: boolean,
): HoursOrganization | undefined {
  const caller = ctx.caller(req);
  if (!caller.isPat) {
    void reply.code(403).send({ message: PAT_ONLY_MESSAGE });
    return undefined;
  }
  if (write && !caller.isAdmin) {
    void reply.code(403).send({ message: UNAUTHORIZED_MESSAGE });
    return undefined;
  }
  const orgs = ctx.organizations();
  const index = orgs.findIndex((o) => o.id === caller.organizationId);
  const org = orgs[index];
  if (!org) throw new Error(`caller's organization ${caller.organizationId} is not known to the sandbox`);
  ctx.store.ensureSeeded(org, index);
  return org;
}

export function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).send({ message: NOT_FOUND_MESSAGE });
}

/** Newest first by created_at; equal instants ordered by id so the list is stable. */
export function newestFirst<T extends { created_at: string; id: string }>(items: T[]): T[] {
  return items.sort((a, b) =>
    a.created_at !== b.created_at ? (a.created_at < b.created_at ? 1 : -1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
}
