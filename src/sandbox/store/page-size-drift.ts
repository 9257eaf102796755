import type { ListParams } from '../protocol/paginate.js';
import { canaryParams } from './canary-pages.js';
import type { SandboxStore } from './sandbox-store.js';

/** page-size-drift: the first page served at the new size. */
export const DRIFT_FROM_PAGE = 3;

/** page-size-drift: the size pages are served at from DRIFT_FROM_PAGE on, and the largest per_page honoured. */
export const DRIFT_PAGE_SIZE = 150;

/**
 * page-size-drift: the list parameters a conversation listing's page is served
 * at, as on a deployment whose page size changed mid-scan (a rolling deploy, a
 * setting changed): its largest per_page is now 150, and from page 3 on it
 * serves 150 a page whatever per_page asks. meta.per_page, meta.from and
 * last_page say so, while the page's links still ask the size asked (they are
 * built from the request). `rawPerPage` is per_page as the request sent it,
 * before the documented maximum of 100 clamped it. Under canary-pages, the
 * canary's sizes instead (./canary-pages.ts).
 */
export function servedParams(store: SandboxStore, params: ListParams, rawPerPage: unknown): ListParams {
  if (store.quirks.has('canary-pages')) return canaryParams(params);
  if (!store.quirks.has('page-size-drift')) return params;
  if (params.page >= DRIFT_FROM_PAGE) return { ...params, perPage: DRIFT_PAGE_SIZE };
  const asked = Number(rawPerPage);
  const perPage =
    Number.isSafeInteger(asked) && asked > params.perPage ? Math.min(asked, DRIFT_PAGE_SIZE) : params.perPage;
  return { ...params, perPage };
}
