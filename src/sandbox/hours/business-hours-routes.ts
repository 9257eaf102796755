import type { FastifyInstance, FastifyReply } from 'fastify';
import { authorize, type HoursContext, newestFirst, notFound } from './hours-context.js';
import { type InboxChannel, profileToWire, type StoredProfile } from './hours-model.js';
import { validateProfileBody } from './validate-profile-body.js';

type ProfileParams = { Params: { business_hour: string } };

/**
 * A channel covered by another profile: 422 with the conflicting profile instead
 * of an `errors` object; nothing of the write is kept (API document, Errors).
 * `message` is added because every error body carries one (same section).
 */
function conflictReply(reply: FastifyReply, profileId: string, channel: InboxChannel): FastifyReply {
  return reply.code(422).send({
    message: 'The channel is already covered by another business-hours profile.',
    conflicting_business_hour_id: profileId,
    inbox_id: channel.inbox_id,
    channel: channel.channel,
  });
}

/** GET/POST /business-hours, GET/PATCH/DELETE /business-hours/:business_hour. */
export function registerBusinessHoursRoutes(app: FastifyInstance, ctx: HoursContext): void {
  app.get('/business-hours', (req, reply) => {
    const org = authorize(ctx, req, reply, false);
    if (!org) return reply;
    // Plain array, all profiles, newest first, unpaginated (API document, Endpoints).
    return reply.send(newestFirst(ctx.store.profiles(org.id)).map(profileToWire));
  });

  app.post('/business-hours', (req, reply) => {
    const org = authorize(ctx, req, reply, true);
    if (!org) return reply;
    const result = validateProfileBody(req.body, new Set(org.inboxIds));
    if (!result.ok) return reply.code(422).send(result.errors.body());
    const clash = ctx.store.conflict(org.id, result.fields.inbox_channels);
    if (clash) return conflictReply(reply, clash.profileId, clash.channel);
    const now = ctx.now().toISOString();
    const profile: StoredProfile = {
      id: ctx.store.newId('business-hours'),
      organizationId: org.id,
      ...result.fields,
      created_at: now,
      updated_at: now,
    };
    ctx.store.saveProfile(profile);
    return reply.code(201).send({ message: 'Business hours created.', data: profileToWire(profile) });
  });

  app.get<ProfileParams>('/business-hours/:business_hour', (req, reply) => {
    const org = authorize(ctx, req, reply, false);
    if (!org) return reply;
    const profile = ctx.store.profile(org.id, req.params.business_hour);
    return profile ? reply.send({ data: profileToWire(profile) }) : notFound(reply);
  });

  app.patch<ProfileParams>('/business-hours/:business_hour', (req, reply) => {
    const org = authorize(ctx, req, reply, true);
    if (!org) return reply;
    const existing = ctx.store.profile(org.id, req.params.business_hour);
    if (!existing) return notFound(reply);
    // An empty PATCH (no body at all) changes nothing, like `{}`.
    const result = validateProfileBody(req.body ?? {}, new Set(org.inboxIds), existing);
    if (!result.ok) return reply.code(422).send(result.errors.body());
    const clash = ctx.store.conflict(org.id, result.fields.inbox_channels, existing.id);
    if (clash) return conflictReply(reply, clash.profileId, clash.channel);
    const updated: StoredProfile = { ...existing, ...result.fields, updated_at: ctx.now().toISOString() };
    ctx.store.saveProfile(updated);
    return reply.send({ message: 'Business hours updated.', data: profileToWire(updated) });
  });

  app.delete<ProfileParams>('/business-hours/:business_hour', (req, reply) => {
    const org = authorize(ctx, req, reply, true);
    if (!org) return reply;
    const existing = ctx.store.profile(org.id, req.params.business_hour);
    if (!existing) return notFound(reply);
    // Deleting releases the covered channels: they are simply no longer listed anywhere.
    ctx.store.deleteProfile(existing.id);
    return reply.code(204).send();
  });
}
