import { API_ERROR_CODES, ApiError } from '../errors/errors.js';
import type { ListCoverage, Span } from './list-coverage.js';
import { type ListPage, listPageOf } from './list-page.js';
import type { ApiObject } from './types.js';

/** Fetches one page: the parsed JSON body at that absolute URL. */
export type PageFetcher = (url: string) => Promise<unknown>;

/** What re-reading a gap gave. */
export interface GapRead {
  /** The items found at the gap's positions, in list order. */
  items: ApiObject[];
  /** Pages asked for. */
  requests: number;
}

/** A page whose body stayed unreadable (cut short, wrong shape) after the queue's retries. */
export function isUnreadablePage(error: unknown): boolean {
  return error instanceof ApiError && error.code === API_ERROR_CODES.badResponse;
}

/**
 * Re-reads the positions of `gap` from the list at `at` (its query kept: sort,
 * search), by page number at the size the server was last seen to serve, and
 * keeps the items whose position, by the answer's own meta, falls in the gap.
 * When an answer shows yet another size, what is still missing is asked once
 * more at that size; two rounds at most, so a server that never serves a
 * position (an item hidden from every page) costs a page or two, not a loop.
 * An answer that stays unreadable ends the re-read with what was found.
 */
export async function readGap(
  gap: Span,
  at: URL,
  coverage: ListCoverage,
  fetchPage: PageFetcher,
  method: string,
): Promise<GapRead> {
  const found = new Map<number, ApiObject>();
  let requests = 0;
  let size = coverage.size;
  for (let round = 0; round < 2; round++) {
    const missing = missingSpan(gap, found);
    if (!missing) break;
    let served = size;
    for (const number of coverage.pagesFor(missing, size)) {
      const url = new URL(at);
      url.searchParams.set('page', String(number));
      url.searchParams.set('per_page', String(size));
      requests += 1;
      let page: ListPage;
      try {
        page = listPageOf(await fetchPage(url.toString()), { method, url: url.toString() });
      } catch (error) {
        if (isUnreadablePage(error)) return { items: inOrder(found), requests };
        throw error;
      }
      if (page.perPage !== undefined && page.perPage > 0) served = page.perPage;
      const span = coverage.spanOf(page, number);
      if (!span) continue;
      page.items.forEach((item, i) => {
        const position = span.from + i;
        if (position >= gap.from && position <= gap.to && !found.has(position)) found.set(position, item);
      });
    }
    // The server kept to the size asked: what is still missing, it does not serve.
    if (served === size) break;
    size = served;
  }
  return { items: inOrder(found), requests };
}

function missingSpan(gap: Span, found: Map<number, ApiObject>): Span | undefined {
  let from: number | undefined;
  let to: number | undefined;
  for (let position = gap.from; position <= gap.to; position++) {
    if (found.has(position)) continue;
    from ??= position;
    to = position;
  }
  return from === undefined || to === undefined ? undefined : { from, to };
}

function inOrder(found: Map<number, ApiObject>): ApiObject[] {
  return [...found.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
}
