import type { FastifyInstance } from 'fastify';
import { invalidField, notFound } from '../protocol/errors.js';
import { BodyReader } from '../protocol/validate.js';
import { callerOf } from '../requests/auth.js';
import { userWire } from '../store/wire.js';
import type { IdParams, RouteContext } from './route-context.js';

const USERS_READ = { scope: 'users:read' };
const COLOR = /^#[0-9A-Fa-f]{6}$/;

/**
 * GET /settings/users[/:user_id] (scope users:read, API document, Authentication
 * rule 5) and PUT/DELETE /settings/tags/:tag_id (name at most 64 characters,
 * color #RRGGBB, API document, Limits). Any teammate may change tags.
 */
export function registerSettingsRoutes(app: FastifyInstance, { store }: RouteContext): void {
  app.get('/settings/users', { config: USERS_READ }, async (request) =>
    store.users(callerOf(request).organization.id).map((u) => {
      // invitations-without-id: a pending invitation is not a user record yet, so it has no id.
      if (!store.quirks.has('invitations-without-id') || u.status !== 'invited') return userWire(u);
      const { id: _id, ...invitation } = userWire(u);
      return invitation;
    }),
  );

  app.get<IdParams<'user_id'>>('/settings/users/:user_id', { config: USERS_READ }, async (request) => {
    const user = store.user(callerOf(request).organization.id, request.params.user_id);
    if (!user) throw notFound();
    return { data: userWire(user) };
  });

  app.put<IdParams<'tag_id'>>('/settings/tags/:tag_id', async (request) => {
    const tag = store.tag(callerOf(request).organization.id, request.params.tag_id);
    if (!tag) throw notFound();
    const body = new BodyReader(request.body, ['name', 'color'], { required: true });
    const name = body.string('name', { required: true, max: 64 });
    const color = body.string('color');
    if (typeof color === 'string' && !COLOR.test(color)) body.add('color', 'The color field must be a #RRGGBB color.');
    body.done();
    const clash = store
      .tags(tag.inbox_id)
      .find((t) => t.id !== tag.id && t.name.toLowerCase() === name!.trim().toLowerCase());
    if (clash) throw invalidField('name', 'The name has already been taken.');
    tag.name = name!.trim();
    if (typeof color === 'string') tag.color = color.toUpperCase();
    return { message: 'Tag updated.' };
  });

  app.delete<IdParams<'tag_id'>>('/settings/tags/:tag_id', async (request) => {
    const tag = store.tag(callerOf(request).organization.id, request.params.tag_id);
    if (!tag) throw notFound();
    // Tag links vanish with the tag: conversations only show tags that still exist.
    store.world.tags.splice(store.world.tags.indexOf(tag), 1);
    return { message: 'Tag deleted.' };
  });
}
