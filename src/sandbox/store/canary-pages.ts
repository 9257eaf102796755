import type { ListParams } from '../protocol/paginate.js';

/** canary-pages: the size even-numbered pages are served at, whatever per_page asks. */
export const CANARY_PAGE_SIZE = 120;

/**
 * canary-pages: the list parameters a conversation listing's page is served at
 * when a router sends even-numbered pages to a canary release whose page size
 * is 120 whatever per_page asks, and odd ones to the release that keeps
 * per_page (at most 100, the documented maximum). meta.per_page, meta.from and
 * last_page say so; the links still ask the size asked. With 100 a page, page 2
 * starts at 121, so positions 101-120 are in no page the links name, nor in
 * page 1 asked at 120 (clamped to 100) or page 2 asked at 100 (120 again):
 * only another page number reaches them (page 3 at 50), or the other order.
 */
export function canaryParams(params: ListParams): ListParams {
  return params.page % 2 === 0 ? { ...params, perPage: CANARY_PAGE_SIZE } : params;
}
