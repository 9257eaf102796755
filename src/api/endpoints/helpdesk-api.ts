import { isPlainObject } from '../../plain-object.js';
import { API_ERROR_CODES, ApiError, FatalApiError } from '../errors/errors.js';
import type { HttpMethod } from '../transport/http-transport.js';
import { collect, paginate } from './paginate.js';
import { listShapeProblem, resourceShapeProblem, type ShapeCheck } from './shape-problem.js';
import type {
  ApiObject,
  BusinessHoursWrite,
  CallOptions,
  ConversationListOptions,
  HelpdeskApi,
  HolidayWrite,
  ListOptions,
  ReadRequest,
} from './types.js';

export type Query = Record<string, string | number | undefined>;

/** One API call as the endpoint functions describe it. */
export interface ApiCall {
  method: HttpMethod;
  /** Path under the base URL (`/me`), or an absolute URL (a followed next link). */
  path: string;
  query?: Query;
  json?: unknown;
  /** May be retried after a 5xx, a reset or a timeout, and follows same-origin redirects. @default method === 'GET' */
  idempotent?: boolean;
  /** For a read: why a body is not of the shape the endpoint serves (then retried like a 5xx). */
  expect?: ShapeCheck;
  signal?: AbortSignal;
}

/** What the endpoint functions need from the client: send a call, get the parsed JSON body. */
export interface ApiCaller {
  call(call: ApiCall): Promise<unknown>;
  /** Absolute URL of a path and query under the base URL. */
  url(path: string, query?: Query): string;
}

const id = (value: string) => encodeURIComponent(value);

/**
 * `{data: <resource>}` → the resource (Conventions: "A single resource is
 * wrapped as {data}"; writes answer `{message, data}`). Any other key beside
 * data/message/success means the body carries more than the resource: then the
 * whole body is returned, so nothing is dropped.
 */
function unwrap(body: unknown, method: string, path: string): ApiObject {
  if (!isPlainObject(body)) {
    throw new FatalApiError({
      code: API_ERROR_CODES.badResponse,
      method,
      url: path,
      body,
      message: `${method} ${path}: expected a JSON object (${API_ERROR_CODES.badResponse})`,
    });
  }
  const wrapperOnly = Object.keys(body).every((k) => k === 'data' || k === 'message' || k === 'success');
  return wrapperOnly && isPlainObject(body.data) ? body.data : body;
}

/** `/inboxes/{inbox_id}/tags` with `{inbox_id: 'a b'}` → `/inboxes/a%20b/tags`. */
function fillPath(path: string, params: ReadRequest['params'] = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${path}: no value for {${name}}`);
    return id(value);
  });
}

async function* one(resource: Promise<ApiObject>): AsyncIterable<ApiObject> {
  yield await resource;
}

/** 404 as a value: a deletion signal for the caller (docs/streams.md), not a failure. */
async function orNullOn404<T>(work: () => Promise<T>): Promise<T | null> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError && error.code === API_ERROR_CODES.notFound) return null;
    throw error;
  }
}

/** The typed endpoint functions of the documented surface the connector uses. */
export function createHelpdeskApi(
  caller: ApiCaller,
  options: { conversationsEndpoint?: 'search' | 'mine' } = {},
): HelpdeskApi {
  const get = async (path: string, query: Query | undefined, o: CallOptions = {}) =>
    unwrap(
      await caller.call({ method: 'GET', path, query, signal: o.signal, expect: resourceShapeProblem }),
      'GET',
      path,
    );
  const write = async (method: HttpMethod, path: string, json: unknown, o: CallOptions = {}) =>
    unwrap(await caller.call({ method, path, json, signal: o.signal }), method, path);
  const remove = async (path: string, o: CallOptions = {}) => {
    await caller.call({ method: 'DELETE', path, signal: o.signal }); // 204, no body
  };
  const list = (
    path: string,
    o: ListOptions & Pick<ConversationListOptions, 'onRepair' | 'onPageSkipped'> = {},
    extra: { query?: Query; perPage?: number | null; method?: 'GET' | 'POST'; repair?: boolean } = {},
  ): AsyncIterable<ApiObject> => {
    const method = extra.method ?? 'GET';
    // POST /search reads: retrying it is safe (docs/rate-limits.md). Its query goes in the URL so next links keep it.
    const fetchPage = (url: string) =>
      caller.call({
        method,
        path: url,
        json: method === 'POST' ? {} : undefined,
        idempotent: true,
        signal: o.signal,
        expect: listShapeProblem,
      });
    return paginate(caller.url(path, extra.query), fetchPage, {
      perPage: extra.perPage,
      onPage: o.onPage,
      method,
      repair: extra.repair,
      onRepair: o.onRepair,
      onPageSkipped: o.onPageSkipped,
    });
  };
  // The start page goes in the URL like sort: next links are built from it and keep the rest.
  const sortQuery = (o: ConversationListOptions = {}) => ({
    ...(o.sort ? { sort: o.sort } : {}),
    ...(o.startPage !== undefined && o.startPage > 1 ? { page: o.startPage } : {}),
  });

  const read = (request: ReadRequest, o?: ListOptions): AsyncIterable<ApiObject> => {
    const path = fillPath(request.path, request.params);
    if (request.paginator === 'single') return one(get(path, request.query, o));
    // Unpaginated plain arrays (Endpoints: "GET lists all profiles ... unpaginated"): no per_page.
    return list(path, o, { query: request.query, perPage: request.paginator === 'unpaginated' ? null : undefined });
  };

  const api: HelpdeskApi = {
    read,
    me: (o) => get('/me', undefined, o),
    listInboxes: (o) => list('/inboxes', o),
    // Counting paginators (Limits): their pages say where they sit, so a gap between them is re-read.
    searchConversations: (o) => list('/search', o, { method: 'POST', query: sortQuery(o), repair: true }),
    listMyConversations: (o) => list('/conversations/mine', o, { query: sortQuery(o), repair: true }),
    listConversations: (o) =>
      options.conversationsEndpoint === 'mine' ? api.listMyConversations(o) : api.searchConversations(o),
    getConversation: (cid, o) => orNullOn404(() => get(`/conversation/${id(cid)}`, undefined, o)),
    listThreadEvents: (cid, o) => orNullOn404(() => collect(list(`/conversation/${id(cid)}/messages`, o))),

    // Unpaginated plain arrays (Endpoints: "GET lists all profiles ... unpaginated"): no per_page.
    listBusinessHours: (o) => collect(list('/business-hours', o, { perPage: null })),
    getBusinessHours: (bid, o) => orNullOn404(() => get(`/business-hours/${id(bid)}`, undefined, o)),
    createBusinessHours: (body: BusinessHoursWrite, o) => write('POST', '/business-hours', body, o),
    updateBusinessHours: (bid, body, o) => write('PATCH', `/business-hours/${id(bid)}`, body, o),
    deleteBusinessHours: (bid, o) => remove(`/business-hours/${id(bid)}`, o),

    listHolidays: (o) => collect(list('/holidays', o, { perPage: null })),
    getHoliday: (hid, o) => orNullOn404(() => get(`/holidays/${id(hid)}`, undefined, o)),
    createHoliday: (body: HolidayWrite, o) => write('POST', '/holidays', body, o),
    updateHoliday: (hid, body, o) => write('PATCH', `/holidays/${id(hid)}`, body, o),
    deleteHoliday: (hid, o) => remove(`/holidays/${id(hid)}`, o),
  };
  return api;
}
