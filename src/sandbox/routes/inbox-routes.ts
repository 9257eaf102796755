import type { FastifyInstance } from 'fastify';
import { notFound } from '../protocol/errors.js';
import { PageLinks, parseListParams, simplePage } from '../protocol/paginate.js';
import { callerOf } from '../requests/auth.js';
import { folderCounts } from '../store/folder-counts.js';
import { inboxWire, tagWire } from '../store/wire.js';
import type { IdParams, RouteContext } from './route-context.js';

/**
 * GET /inboxes (plain array) and GET /inboxes/:inbox_id/tags (simple paginator, API document, Limits);
 * under `broken-tags` every GET /inboxes/:inbox_id/tags answers 500.
 */
export function registerInboxRoutes(app: FastifyInstance, { store }: RouteContext): void {
  app.get('/inboxes', async (request) => {
    const { organization } = callerOf(request);
    const inboxes = store.inboxes(organization.id);
    const counts = folderCounts(
      store,
      inboxes.map((b) => b.id),
    );
    return inboxes.map((b) => inboxWire(b, { ...counts.get(b.id)! }));
  });

  app.get<IdParams<'inbox_id'>>('/inboxes/:inbox_id/tags', async (request) => {
    // broken-tags: the route's handler fails on this deployment, for every inbox (Errors: 500, an incident id).
    if (store.quirks.has('broken-tags')) throw new Error('broken-tags: the tags route fails on this deployment');
    const { organization } = callerOf(request);
    const inbox = store.inbox(organization.id, request.params.inbox_id);
    if (!inbox) throw notFound();
    const params = parseListParams(request.query as Record<string, unknown>);
    const tags = store.tags(inbox.id).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    const offset = (params.page - 1) * params.perPage;
    const data = tags.slice(offset, offset + params.perPage).map(tagWire);
    return simplePage(data, tags.length > offset + params.perPage, params, new PageLinks(request, params));
  });
}
