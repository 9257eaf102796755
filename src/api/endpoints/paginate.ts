import { API_ERROR_CODES, FatalApiError } from '../errors/errors.js';
import { ListCoverage, type Span } from './list-coverage.js';
import { type ListPage, listPageOf } from './list-page.js';
import { type Anchor, type GapContext, isUnreadablePage, itemId, type PageFetcher, readGap } from './repair-gap.js';
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
  const info: PageInfo = { pagesRead: 0, itemsRead: 0, pageItems: 0, overlapping: 0 };
  // The last page served at known positions: a gap right after it is re-read against it.
  let previous: ServedPage | undefined;
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
    const total = page.total ?? info.total;
    const coveredBefore = coverage?.covered;
    const served = coverage?.spanOf(page, asked);
    const firstServed = served && anchorOf(page.items[0], served.from);
    const at = url;
    const gap = async (span: Span | undefined, after?: Anchor) =>
      span && coverage
        ? repaired(gapContext(span, { at, coverage, fetchPage, method, total, after }, previous), options)
        : [];
    const before = await gap(coverage?.gapBefore(page, asked), firstServed);
    if (served) {
      coverage?.reach(served.to);
      previous = servedPage(page, served, previous);
    }
    const next = page.items.length === 0 && !page.nextLink ? undefined : nextUrl(page, url, first, perPage);
    const after = coverage && !next ? await gap(coverage.tailGap(total)) : [];
    const items = before.length + page.items.length + after.length;
    info.pagesRead += 1;
    info.itemsRead += items;
    info.pageItems = items;
    info.overlapping += overlapOf(served, coveredBefore);
    info.currentPage = page.currentPage;
    info.lastPage = page.lastPage ?? info.lastPage;
    info.total = total;
    info.perPage = page.perPage ?? info.perPage;
    if (coverage?.covered !== undefined) info.reached = coverage.covered;
    options.onPage?.({ ...info });
    yield* before;
    yield* page.items;
    yield* after;
    url = next;
  }
}

/** A page as a later gap's re-read needs it: where it sat, what it held, and what came before it. */
interface ServedPage {
  span: Span;
  ids: Set<string>;
  /** Fewer items than its meta.per_page: its meta placed them from its start, holes or not. */
  short: boolean;
  /** Its last item, and the item served just before it (when the pages joined). */
  last?: Anchor;
  before?: Anchor;
}

function servedPage(page: ListPage, span: Span, previous: ServedPage | undefined): ServedPage {
  const ids = new Set<string>();
  for (const item of page.items) {
    const id = itemId(item);
    if (id !== undefined) ids.add(id);
  }
  return {
    span,
    ids,
    short: page.perPage !== undefined && page.items.length < page.perPage,
    last: anchorOf(page.items.at(-1), span.to),
    before: previous?.span.to === span.from - 1 ? previous.last : undefined,
  };
}

/**
 * Where a gap's items are to be looked for (see GapContext.window): the gap,
 * or from the start of the page before it when that page came back short.
 */
function gapContext(
  gap: Span,
  ctx: Omit<GapContext, 'window' | 'known' | 'before'>,
  previous: ServedPage | undefined,
): { gap: Span; ctx: GapContext } {
  const adjoins = previous?.span.to === gap.from - 1;
  if (previous && adjoins && previous.short) {
    const window = { from: previous.span.from, to: gap.to };
    return { gap, ctx: { ...ctx, window, known: previous.ids, before: previous.before } };
  }
  return { gap, ctx: { ...ctx, window: gap, known: new Set(), before: adjoins ? previous?.last : undefined } };
}

function anchorOf(item: ApiObject | undefined, position: number): Anchor | undefined {
  const id = item && itemId(item);
  return id === undefined ? undefined : { position, id };
}

/** Items of a page served at positions an earlier page already served (the pages overlap). */
function overlapOf(served: Span | undefined, coveredBefore: number | undefined): number {
  if (!served || coveredBefore === undefined) return 0;
  return Math.max(0, Math.min(served.to, coveredBefore) - served.from + 1);
}

/** The `page` a URL asks for (Limits: 1-indexed, default 1); undefined when it is no whole number. */
function pageNumberOf(url: URL): number | undefined {
  const raw = url.searchParams.get('page');
  if (raw === null) return 1;
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/** Re-reads a gap, tells onRepair, and moves the coverage past it. */
async function repaired(at: { gap: Span; ctx: GapContext }, options: PaginateOptions): Promise<ApiObject[]> {
  const { gap, ctx } = at;
  const read = await readGap(gap, ctx);
  ctx.coverage.reach(gap.to);
  options.onRepair?.({
    from: gap.from,
    to: gap.to,
    recovered: read.items.length,
    requests: read.requests,
    missing: read.missing,
    within: ctx.window,
  });
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
