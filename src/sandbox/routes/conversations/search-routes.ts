import type { FastifyInstance } from 'fastify';
import { STATUSES } from '../../model/model.js';
import { countingPage, type ListParams, PageLinks, parseListParams } from '../../protocol/paginate.js';
import { BodyReader } from '../../protocol/validate.js';
import { callerOf } from '../../requests/auth.js';
import { withoutHidden } from '../../store/hidden-conversation.js';
import { listConversations } from '../../store/list-conversations.js';
import { servedParams } from '../../store/page-size-drift.js';
import { conversationWire } from '../../store/wire.js';
import { pageAnswerWrongShape, WRONG_SHAPE_BODY } from '../../store/wrong-shape.js';
import type { RouteContext } from '../route-context.js';

/** newest-first: the deployment ignores sort=oldest and lists newest first. */
function quirkyParams(store: RouteContext['store'], params: ListParams): ListParams {
  return store.quirks.has('newest-first') && params.sort === 'oldest' ? { ...params, sort: 'newest' } : params;
}

/**
 * overlapping-pages: each page after the first begins with the previous page's
 * last item again, as offset pagination serves it when an item is added above
 * the scan position between two page requests, or when the sort has ties.
 */
function withOverlap(
  store: RouteContext['store'],
  page: number[],
  params: ListParams,
  previousPage: () => number[],
): number[] {
  if (!store.quirks.has('overlapping-pages') || params.page < 2 || page.length === 0) return page;
  const last = previousPage().at(-1);
  return last === undefined ? page : [last, ...page];
}

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
    const queryString = request.query as Record<string, unknown>;
    const asked = quirkyParams(store, parseListParams(queryString, body.body));
    if (pageAnswerWrongShape(store, 'search', asked)) return WRONG_SHAPE_BODY;
    const params = servedParams(store, asked, queryString.per_page ?? body.body.per_page);
    const filter = {
      organizationId: organization.id,
      // trash-hidden: search shows live conversations only.
      includeTrashed: !store.quirks.has('trash-hidden'),
      ...(typeof query === 'string' && query.trim() !== '' ? { query } : {}),
      ...(status ? { status } : {}),
      ...(typeof inboxId === 'string' ? { inboxId } : {}),
    };
    const { indexes, total } = listConversations(store, filter, params);
    // search-cap: nothing past the cap, while meta.total still counts every match.
    const cap = store.quirks.has('search-cap') ? store.quirks.searchCap : Number.POSITIVE_INFINITY;
    const offset = (params.page - 1) * params.perPage;
    const capped = (list: number[], from: number) => list.slice(0, Math.max(0, cap - from));
    const shown = withOverlap(store, withoutHidden(store, capped(indexes, offset)), params, () =>
      capped(listConversations(store, filter, { ...params, page: params.page - 1 }).indexes, offset - params.perPage),
    );
    const data = shown.map((i) => conversationWire(store, store.conversations.get(i)));
    return {
      success: true,
      data: { conversations: countingPage(data, total, params, new PageLinks(request, asked)) },
    };
  });

  app.get('/conversations/mine', async (request) => {
    const { organization, user } = callerOf(request);
    const query = request.query as Record<string, unknown>;
    const asked = quirkyParams(store, parseListParams(query));
    if (pageAnswerWrongShape(store, 'mine', asked)) return WRONG_SHAPE_BODY;
    const params = servedParams(store, asked, query.per_page);
    const filter = { organizationId: organization.id, assigneeId: user.id, includeTrashed: false };
    const { indexes, total } = listConversations(store, filter, params);
    const shown = withOverlap(
      store,
      withoutHidden(store, indexes),
      params,
      () => listConversations(store, filter, { ...params, page: params.page - 1 }).indexes,
    );
    const data = shown.map((i) => conversationWire(store, store.conversations.get(i)));
    return countingPage(data, total, params, new PageLinks(request, asked));
  });
}
