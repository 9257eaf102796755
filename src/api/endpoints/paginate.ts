import { API_ERROR_CODES, FatalApiError } from '../errors/errors.js';
import { type ListPage, listPageOf } from './list-page.js';
import type { ApiObject, PageInfo } from './types.js';

/** Fetches one page: the parsed JSON body at that absolute URL. */
export type PageFetcher = (url: string) => Promise<unknown>;

export interface PaginateOptions {
  /** `per_page` kept on every page URL, including followed next links. @default 100 (Limits: maximum 100) */
  perPage?: number | null;
  /** Called after every page, before its items are yielded. */
  onPage?: (page: PageInfo) => void;
  /** Method shown in errors. @default GET */
  method?: string;
}

/** Query string order does not make two URLs different pages. */
function pageKey(url: URL): string {
  const params = [...url.searchParams.entries()].sort(([a], [b]) => a.localeCompare(b));
  return `${url.origin}${url.pathname}?${new URLSearchParams(params).toString()}`;
}

/**
 * The URL of the next page: links.next when given, else the page after
 * meta.current_page while meta says there is one. A next link to another origin is rebased onto ours:
 * the token is never sent to a host we were not configured with (and servers
 * behind proxies often build links with an internal host name).
 */
function nextUrl(page: ListPage, current: URL, first: URL, perPage: number | null): URL | undefined {
  let next: URL | undefined;
  if (page.nextLink) {
    next = new URL(page.nextLink, current);
    if (next.origin !== first.origin) next = new URL(`${next.pathname}${next.search}`, first.origin);
  } else if (page.nextPage !== undefined) {
    next = new URL(current);
    next.searchParams.set('page', String(page.nextPage));
  }
  // Links often drop the query the list was asked with (per_page, sort): carry it over.
  if (next) {
    for (const [name, value] of first.searchParams)
      if (name !== 'page' && !next.searchParams.has(name)) next.searchParams.set(name, value);
    if (perPage !== null && !next.searchParams.has('per_page')) next.searchParams.set('per_page', String(perPage));
  }
  return next;
}

/**
 * One async iterator over every list shape of the API (docs/streams.md; Limits):
 * the counting paginator, the simple paginator (follow links.next until null),
 * the search wrapper `{success, data: {conversations: <paginator>}}` and plain
 * arrays. Missing `links`/`meta` are tolerated; an unknown shape is an error,
 * never an empty list. The same page asked twice stops with API_PAGINATION_LOOP.
 */
export async function* paginate(
  firstUrl: string,
  fetchPage: PageFetcher,
  options: PaginateOptions = {},
): AsyncGenerator<ApiObject> {
  const perPage = options.perPage === undefined ? 100 : options.perPage;
  const method = options.method ?? 'GET';
  const first = new URL(firstUrl);
  if (perPage !== null && !first.searchParams.has('per_page')) first.searchParams.set('per_page', String(perPage));
  const seen = new Set<string>();
  let url: URL | undefined = first;
  let previousPage: number | undefined;
  const info: PageInfo = { pagesRead: 0, itemsRead: 0, pageItems: 0 };
  while (url) {
    const key = pageKey(url);
    if (seen.has(key)) throw loopError(method, url, 'the same page was linked twice');
    seen.add(key);
    const page = listPageOf(await fetchPage(url.toString()), { method, url: url.toString() });
    if (previousPage !== undefined && page.currentPage === previousPage) {
      throw loopError(method, url, `meta.current_page stayed at ${previousPage}`);
    }
    previousPage = page.currentPage;
    info.pagesRead += 1;
    info.itemsRead += page.items.length;
    info.pageItems = page.items.length;
    info.currentPage = page.currentPage;
    info.lastPage = page.lastPage ?? info.lastPage;
    info.total = page.total ?? info.total;
    info.perPage = page.perPage ?? info.perPage;
    options.onPage?.({ ...info });
    yield* page.items;
    url = page.items.length === 0 && !page.nextLink ? undefined : nextUrl(page, url, first, perPage);
  }
}

function loopError(method: string, url: URL, why: string): FatalApiError {
  return new FatalApiError({
    code: API_ERROR_CODES.paginationLoop,
    method,
    url: url.toString(),
    message: `Loop detected in pagination of ${method} ${url.toString()}: ${why} (${API_ERROR_CODES.paginationLoop})`,
  });
}

/** Collects a list into an array (for the unpaginated lists: business hours, holidays, thread events). */
export async function collect(items: AsyncIterable<ApiObject>): Promise<ApiObject[]> {
  const out: ApiObject[] = [];
  for await (const item of items) out.push(item);
  return out;
}
