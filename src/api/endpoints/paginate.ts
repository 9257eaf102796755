import { API_ERROR_CODES, FatalApiError } from '../errors/errors.js';
import { ListCoverage, type Span } from './list-coverage.js';
import { type ListPage, listPageOf } from './list-page.js';
import { isUnreadablePage, type PageFetcher, readGap } from './repair-gap.js';
import type { ApiObject, ConversationListOptions, PageInfo } from './types.js';

export type { PageFetcher } from './repair-gap.js';

export interface PaginateOptions extends Pick<ConversationListOptions, 'onRepair' | 'onPageSkipped'> {
  /** `per_page` kept on every page URL, including followed next links. @default 100 (Limits: maximum 100) */
  perPage?: number | null;
  /** Called after every page, before its items are yielded. */
  onPage?: (page: PageInfo) => void;
  /** Method shown in errors. @default GET */
  method?: string;
  /**
   * Track the positions the pages serve (a counting paginator's meta) and re-read what they
   * show missing before going on (./list-coverage.ts, ./repair-gap.ts). @default false
   */
  repair?: boolean;
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
 * With `repair`, the positions a page shows missing before it (or after the
 * last one, once the server served another size than asked) are re-read first
 * and handed out as part of that page, so items keep their list order. With
 * `onPageSkipped`, a page whose body stays unreadable is skipped when more
 * pages are known to follow.
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
  const coverage = options.repair ? new ListCoverage(perPage ?? 100) : undefined;
  const seen = new Set<string>();
  let url: URL | undefined = first;
  let previousPage: number | undefined;
  const info: PageInfo = { pagesRead: 0, itemsRead: 0, pageItems: 0 };
  while (url) {
    const key = pageKey(url);
    if (seen.has(key)) throw loopError(method, url, 'the same page was linked twice');
    seen.add(key);
    const asked = pageNumberOf(url);
    let page: ListPage;
    try {
      page = listPageOf(await fetchPage(url.toString()), { method, url: url.toString() });
    } catch (error) {
      const after = skippedTo(error, url, asked, info, coverage, options);
      if (after === false) throw error;
      url = after;
      continue;
    }
    if (previousPage !== undefined && page.currentPage === previousPage) {
      throw loopError(method, url, `meta.current_page stayed at ${previousPage}`);
    }
    previousPage = page.currentPage;
    const gap = (span: Span | undefined) => repaired(span, url as URL, coverage as ListCoverage, fetchPage, options);
    const before = coverage ? await gap(coverage.gapBefore(page, asked)) : [];
    const served = coverage?.spanOf(page, asked);
    if (served) coverage?.reach(served.to);
    const next = page.items.length === 0 && !page.nextLink ? undefined : nextUrl(page, url, first, perPage);
    const after = coverage && !next ? await gap(coverage.tailGap(page.total ?? info.total)) : [];
    const items = before.length + page.items.length + after.length;
    info.pagesRead += 1;
    info.itemsRead += items;
    info.pageItems = items;
    info.currentPage = page.currentPage;
    info.lastPage = page.lastPage ?? info.lastPage;
    info.total = page.total ?? info.total;
    info.perPage = page.perPage ?? info.perPage;
    options.onPage?.({ ...info });
    yield* before;
    yield* page.items;
    yield* after;
    url = next;
  }
}

/** The `page` a URL asks for (Limits: 1-indexed, default 1); undefined when it is no whole number. */
function pageNumberOf(url: URL): number | undefined {
  const raw = url.searchParams.get('page');
  if (raw === null) return 1;
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/** Re-reads a gap's positions, tells onRepair, and moves the coverage past it. */
async function repaired(
  gap: Span | undefined,
  at: URL,
  coverage: ListCoverage,
  fetchPage: PageFetcher,
  options: PaginateOptions,
): Promise<ApiObject[]> {
  if (!gap) return [];
  const read = await readGap(gap, at, coverage, fetchPage, options.method ?? 'GET');
  coverage.reach(gap.to);
  options.onRepair?.({ from: gap.from, to: gap.to, recovered: read.items.length, requests: read.requests });
  return read.items;
}

/**
 * Where the list goes on after a page that failed: the next page's URL, or
 * undefined when the failed one was the last; false when it is not to be
 * skipped (no onPageSkipped, another error, or nothing says more pages follow).
 */
function skippedTo(
  error: unknown,
  url: URL,
  asked: number | undefined,
  info: PageInfo,
  coverage: ListCoverage | undefined,
  options: PaginateOptions,
): URL | undefined | false {
  const last = info.lastPage;
  if (!options.onPageSkipped || !isUnreadablePage(error) || asked === undefined || last === undefined) return false;
  if (asked > last) return false;
  const size = coverage?.size ?? info.perPage ?? 100;
  const left = info.total === undefined ? size : info.total - (asked - 1) * size;
  options.onPageSkipped({ page: asked, items: Math.max(0, Math.min(size, left)), error });
  coverage?.reach(asked * size);
  if (asked >= last) return undefined;
  const next = new URL(url);
  next.searchParams.set('page', String(asked + 1));
  return next;
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
