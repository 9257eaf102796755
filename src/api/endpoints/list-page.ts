import { isPlainObject } from '../../plain-object.js';
import { API_ERROR_CODES, FatalApiError } from '../errors/errors.js';
import type { ApiObject } from './types.js';

/** One page of a list, whatever envelope it came in. */
export interface ListPage {
  items: ApiObject[];
  /** links.next (or next_page_url), when the page gave one. */
  nextLink?: string;
  /** The next page number, derived from meta when there is no next link. */
  nextPage?: number;
  currentPage?: number;
  lastPage?: number;
  total?: number;
  perPage?: number;
  /** meta.from: the position of the page's first item (1-based). */
  from?: number;
}

type Obj = Record<string, unknown>;

function int(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

/** A body that is no list of any envelope; `why` says what is wrong in a few words. */
export class ListShapeError extends FatalApiError {
  constructor(
    ctx: { method: string; url: string },
    readonly why: string,
    body: unknown,
  ) {
    super({
      code: API_ERROR_CODES.badResponse,
      method: ctx.method,
      url: ctx.url,
      body,
      message: `${ctx.method} ${ctx.url}: ${why} (${API_ERROR_CODES.badResponse})`,
    });
  }
}

function badShape(ctx: { method: string; url: string }, why: string, body: unknown): FatalApiError {
  return new ListShapeError(ctx, why, body);
}

/** Items must be objects: anything else would have to be dropped, so it is an error instead. */
function objects(list: unknown[], ctx: { method: string; url: string }): ApiObject[] {
  const odd = list.findIndex((item) => !isPlainObject(item));
  if (odd >= 0) throw badShape(ctx, `list item ${odd} is not an object`, list[odd]);
  return list as ApiObject[];
}

/**
 * A counting paginator `{data, links, meta}`, a simple paginator (meta without
 * last_page/total; see Limits), or Laravel's flat form (next_page_url,
 * current_page... beside data). Missing links or meta: one page, unless meta
 * shows more pages.
 */
function paginatorPage(body: Obj, data: unknown[], ctx: { method: string; url: string }): ListPage {
  const links = isPlainObject(body.links) ? body.links : undefined;
  const meta = isPlainObject(body.meta) ? body.meta : body;
  const next = links ? links.next : body.next_page_url;
  const page: ListPage = {
    items: objects(data, ctx),
    currentPage: int(meta.current_page),
    lastPage: int(meta.last_page),
    total: int(meta.total),
    perPage: int(meta.per_page),
    from: int(meta.from),
  };
  if (typeof next === 'string' && next !== '') page.nextLink = next;
  const linksSayEnd = (links !== undefined && 'next' in links) || 'next_page_url' in body;
  if (page.nextLink || linksSayEnd || page.currentPage === undefined) return page;
  const perPage = page.perPage;
  if (page.lastPage !== undefined) {
    if (page.currentPage < page.lastPage) page.nextPage = page.currentPage + 1;
  } else if (perPage !== undefined && perPage > 0 && data.length >= perPage) {
    page.nextPage = page.currentPage + 1;
  }
  return page;
}

/**
 * Reads one page of any list envelope the API uses (docs/streams.md): plain array,
 * paginator, the search wrapper `{success, data: {conversations: <paginator>}}`,
 * or an object holding exactly one list. Anything else is API_BAD_RESPONSE.
 */
export function listPageOf(body: unknown, ctx: { method: string; url: string }): ListPage {
  if (Array.isArray(body)) return { items: objects(body, ctx) };
  if (!isPlainObject(body)) throw badShape(ctx, 'expected a list, got no JSON object or array', body);
  const data = body.data;
  if (Array.isArray(data)) return paginatorPage(body, data, ctx);
  const holder = isPlainObject(data) ? data : data === undefined ? body : undefined;
  if (holder) {
    if ('conversations' in holder) return listPageOf(holder.conversations, ctx);
    const lists = Object.entries(holder).filter(
      ([, v]) => Array.isArray(v) || (isPlainObject(v) && Array.isArray(v.data)),
    );
    if (lists.length === 1) return listPageOf((lists[0] as [string, unknown])[1], ctx);
  }
  throw badShape(ctx, 'unrecognised list shape', body);
}
