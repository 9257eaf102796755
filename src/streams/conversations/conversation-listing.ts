import type { ApiObject, HelpdeskApi, ListRepair, PageInfo, PageSkip } from '../../api/index.js';
import { isUnreadable } from '../api-error-status.js';

/** Items per list page (the client asks per_page=100, the maximum: see Limits). */
export const PAGE_SIZE = 100;

/** Marks the end of a list page in the item sequence: every item of page `page` came before it. */
export interface PageEnd {
  pageEnd: number;
}

export function isPageEnd(entry: ApiObject | PageEnd): entry is PageEnd {
  return typeof (entry as PageEnd).pageEnd === 'number' && Object.keys(entry).length === 1;
}

export interface ListingOptions {
  /** API document, Limits: sort newest (default), oldest. */
  sort: 'oldest' | 'newest';
  /** First page to read. @default 1 */
  startPage?: number;
  /** Stop after the page whose last item this answers true for (its items are still handed out). */
  stopAfter?: (lastItem: ApiObject | undefined) => boolean;
  /** Read at most this many pages. @default no limit */
  maxPages?: number;
  /**
   * Skip a page whose body stays unreadable and go on with the next (a full scan: the next run
   * reads the whole list again). A backfill does not: its next page is recorded behind each page,
   * so a skipped page would never be read again; the unreadable page ends its pass instead.
   * @default false
   */
  skipUnreadablePages?: boolean;
}

/** Items the listing's pages and re-reads never served, and the positions they sit in (1-based, both included). */
export interface ListingHole {
  from: number;
  to: number;
  missing: number;
}

/**
 * One pass over the conversation list (`POST /search` or `GET /conversations/mine`),
 * item by item with a `PageEnd` after each page, and what the pass observed of
 * the list for the completeness figure (docs/streams.md, "Completeness"):
 * meta.total, how many items it served, the holes its pages showed mid-list
 * that no re-read filled, and the tail its last page left unserved.
 */
export class ConversationListing {
  /** True once the pass read the list's last page, without an abort or an early stop. */
  complete = false;
  /** The latest page's info (meta.total, last_page, the positions reached…). */
  page?: PageInfo;
  /** Items served, repeats included. */
  served = 0;
  /** Pages this pass read to their end. */
  pagesRead = 0;
  /** Ranges the pages showed missing, re-read (api/endpoints/repair-gap.ts). */
  readonly repairs: ListRepair[] = [];
  /** Pages skipped for a body that stayed unreadable. */
  readonly skipped: PageSkip[] = [];
  /** The unreadable answer that ended the pass early, if one did (its first page, or a backfill's). */
  unreadableEnd: unknown;

  constructor(
    private readonly api: Pick<HelpdeskApi, 'listConversations'>,
    private readonly signal: AbortSignal,
    readonly options: ListingOptions,
  ) {}

  /** The page number of the latest page (meta.current_page when given). */
  get currentPage(): number {
    const info = this.page;
    return info?.currentPage ?? (this.options.startPage ?? 1) + Math.max(0, (info?.pagesRead ?? 1) - 1);
  }

  async *items(): AsyncIterable<ApiObject | PageEnd> {
    const { startPage, maxPages, stopAfter, sort } = this.options;
    let pageStartedAt = 0;
    let last: ApiObject | undefined;
    const pageDone = (): PageEnd => {
      this.pagesRead += 1;
      return { pageEnd: this.currentPage };
    };
    const early = () => (maxPages !== undefined && this.pagesRead >= maxPages) || stopAfter?.(last) === true;
    const onPage = (info: PageInfo) => {
      this.page = info;
      pageStartedAt = this.served;
      last = undefined;
    };
    const list = this.api.listConversations({
      signal: this.signal,
      sort,
      onPage,
      startPage,
      onRepair: (repair) => this.repairs.push(repair),
      ...(this.options.skipUnreadablePages ? { onPageSkipped: (skip: PageSkip) => this.skipped.push(skip) } : {}),
    });
    try {
      for await (const item of list) {
        if (this.signal.aborted) return;
        this.served += 1;
        last = item;
        yield item;
        if (this.page && this.served === pageStartedAt + this.page.pageItems) {
          yield pageDone();
          // The last page ends the pass naturally (and completes it), budget or not.
          if (early() && !this.#atLastPage()) return;
        }
      }
    } catch (error) {
      // A page no retry could read, which the pass could not skip: the pass ends incomplete (nothing is
      // called deleted), the stream goes on, and the next run reads the list again.
      if (this.signal.aborted || !isUnreadable(error)) throw error;
      this.unreadableEnd = error;
      return;
    }
    if (this.signal.aborted) return;
    // A last page with no items (or fewer than meta said) ends here.
    if (this.page && this.pagesRead < this.page.pagesRead) yield pageDone();
    this.complete = true;
  }

  /** Items mid-list that no page served and no re-read found: observed holes, in list order. */
  get holes(): ListingHole[] {
    return this.repairs
      .filter((repair) => repair.missing > 0)
      .map((repair) => ({ from: repair.within.from, to: repair.within.to, missing: repair.missing }));
  }

  /** Items served at positions an earlier page had served (overlapping pages): repeats that are no shift. */
  get overlapping(): number {
    return this.page?.overlapping ?? 0;
  }

  /**
   * The tail a complete pass's last page left unserved: meta.total less the last
   * position served or re-read, as the pages' own meta told them. Observed only
   * when the pages tell positions (meta.from, or meta.current_page with
   * meta.per_page); otherwise 0, and a shortfall stays unexplained.
   */
  get tailUnserved(): number {
    const info = this.page;
    if (!this.complete || info?.total === undefined || info.reached === undefined) return 0;
    return Math.max(0, info.total - info.reached);
  }

  #atLastPage(): boolean {
    const info = this.page;
    return info?.lastPage !== undefined && this.currentPage >= info.lastPage;
  }
}
