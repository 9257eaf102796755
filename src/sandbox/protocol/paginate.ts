import type { FastifyRequest } from 'fastify';
import { invalid } from './errors.js';

export type SortOrder = 'newest' | 'oldest' | 'priority';
export const SORTS: readonly SortOrder[] = ['newest', 'oldest', 'priority'];

/** API document, Limits: page 1-indexed (default 1), per_page default 20, maximum 100. */
export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

export interface ListParams {
  page: number;
  perPage: number;
  sort: SortOrder;
}

function positiveInt(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 1 ? value : undefined;
  if (typeof value === 'string' && /^\d+$/.test(value)) {
    const n = Number(value);
    return n >= 1 && Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/**
 * Reads page / per_page / sort from the first source that has each (the query
 * string before the body, so a followed `links.next` wins). per_page above 100
 * is clamped to 100; below 1, non-numeric, or an unknown sort is a 422.
 */
export function parseListParams(...sources: Array<Record<string, unknown> | undefined>): ListParams {
  const pick = (key: string) => sources.find((s) => s !== undefined && s[key] !== undefined)?.[key];
  const errors: Record<string, string[]> = {};
  const rawPage = pick('page');
  const rawPerPage = pick('per_page');
  const rawSort = pick('sort');
  const page = rawPage === undefined ? 1 : positiveInt(rawPage);
  const perPage = rawPerPage === undefined ? DEFAULT_PER_PAGE : positiveInt(rawPerPage);
  if (page === undefined) errors.page = ['The page field must be an integer of at least 1.'];
  if (perPage === undefined) errors.per_page = ['The per_page field must be an integer of at least 1.'];
  if (rawSort !== undefined && !SORTS.includes(rawSort as SortOrder)) {
    errors.sort = [`The selected sort is invalid (one of ${SORTS.join(', ')}).`];
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return { page: page!, perPage: Math.min(perPage!, MAX_PER_PAGE), sort: (rawSort as SortOrder) ?? 'newest' };
}

/** Builds page URLs: the endpoint's absolute URL, the request's list parameters kept, `page` replaced. */
export class PageLinks {
  readonly path: string;

  constructor(
    request: FastifyRequest,
    private readonly params: ListParams,
  ) {
    const pathname = request.url.split('?')[0] ?? request.url;
    this.path = `${request.protocol}://${request.host}${pathname}`;
  }

  url(page: number): string {
    const query = new URLSearchParams({ page: String(page), per_page: String(this.params.perPage) });
    if (this.params.sort !== 'newest') query.set('sort', this.params.sort);
    return `${this.path}?${query.toString()}`;
  }
}

/** Counting paginator (API document, Limits): links first/last/prev/next and meta with total and last_page. */
export function countingPage<T>(data: T[], total: number, params: ListParams, links: PageLinks) {
  const { page, perPage } = params;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null;
  return {
    data,
    links: {
      first: links.url(1),
      last: links.url(lastPage),
      prev: page > 1 ? links.url(Math.min(page - 1, lastPage)) : null,
      next: page < lastPage ? links.url(page + 1) : null,
    },
    meta: {
      current_page: page,
      from,
      last_page: lastPage,
      per_page: perPage,
      to: from === null ? null : from + data.length - 1,
      total,
      path: links.path,
    },
  };
}

/** Simple paginator (API document, Limits, inbox tags): no total/last_page; current_page_url; follow next until null. */
export function simplePage<T>(data: T[], hasMore: boolean, params: ListParams, links: PageLinks) {
  const { page, perPage } = params;
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null;
  return {
    data,
    links: {
      first: links.url(1),
      last: null,
      prev: page > 1 ? links.url(page - 1) : null,
      next: hasMore ? links.url(page + 1) : null,
    },
    meta: {
      current_page: page,
      current_page_url: links.url(page),
      from,
      path: links.path,
      per_page: perPage,
      to: from === null ? null : from + data.length - 1,
    },
  };
}
