import type { FastifyInstance } from 'fastify';
import { callerOf } from '../auth.js';
import { STATUSES } from '../model.js';
import { countingPage, PageLinks, parseListParams } from '../paginate.js';
import { listConversations } from '../store/list-conversations.js';
import { conversationWire } from '../store/wire.js';
import { BodyReader } from '../validate.js';
import type { RouteContext } from './route-context.js';

const SEARCH_FIELDS = ['query', 'status', 'inbox_id', 'page', 'per_page', 'sort'];

/**
 * POST /search: `{success, data: {conversations: <counting paginator>}}` over
 * every conversation of the organization, live and trashed (trashed ones carry
 * deleted_at), never permanently deleted ones. GET /conversations/mine: live
 * conversations assigned to the caller, counting paginator (API document, Limits).
 */
export function registerSearchRoutes(app: FastifyInstance, { store }: RouteContext): void {
  app.post('/search', async (request) => {
    const { organization } = callerOf(request);
    const body = new BodyReader(request.body, SEARCH_FIELDS);
    const query = body.string('query', { max: 255 });
    const status = body.oneOf('status', STATUSES);
    const inboxId = body.string('inbox_id');
    if (typeof inboxId === 'string' && !store.inbox(organization.id, inboxId)) {
      body.add('inbox_id', 'The selected inbox id is invalid.');
    }
    body.done();
    const params = parseListParams(request.query as Record<string, unknown>, body.body);
    const filter = {
      organizationId: organization.id,
      includeTrashed: true,
      ...(typeof query === 'string' && query.trim() !== '' ? { query } : {}),
      ...(status ? { status } : {}),
      ...(typeof inboxId === 'string' ? { inboxId } : {}),
    };
    const { indexes, total } = listConversations(store, filter, params);
    const data = indexes.map((i) => conversationWire(store, store.conversations.get(i)));
    return {
      success: true,
      data: { conversations: countingPage(data, total, params, new PageLinks(request, params)) },
    };
  });

  app.get('/conversations/mine', async (request) => {
    const { organization, user } = callerOf(request);
    const params = parseListParams(request.query as Record<string, unknown>);
    const filter = { organizationId: organization.id, assigneeId: user.id, includeTrashed: false };
    const { indexes, total } = listConversations(store, filter, params);
    const data = indexes.map((i) => conversationWire(store, store.conversations.get(i)));
    return countingPage(data, total, params, new PageLinks(request, params));
  });
}
