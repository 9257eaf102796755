import type { ListPage } from './list-page.js';

/** Positions in a list, 1-based, both ends included (meta.from and meta.to count so: see Limits). */
export interface Span {
  from: number;
  to: number;
}

/**
 * Which positions of a counting paginator's list the pages read so far served,
 * told by each page's own meta (API document, Limits: `meta {current_page, from,
 * per_page, to, total}`), so a scan can see what it did not get and ask for it:
 * a page served at another size than asked (a deployment changing its page size
 * mid-scan moves every later page's `from`), a page shorter than its size with
 * more after it. Pure bookkeeping: ./repair-gap.ts does the asking.
 */
export class ListCoverage {
  /** Every position up to this one was served or given up on; undefined before the first page. */
  covered: number | undefined;
  /** The page size the server was last seen to serve. */
  size: number;
  /** A page was served at a size or a start other than the ones asked for. */
  drifted = false;

  constructor(readonly asked: number) {
    this.size = asked;
  }

  /**
   * Takes in one page, asked as page `askedPage` at the asked size, and returns
   * the positions missing before it (a gap), if any. A page that starts before
   * the covered end overlaps instead: its repeats are the reader's to skip.
   */
  gapBefore(page: ListPage, askedPage: number | undefined): Span | undefined {
    if (page.perPage !== undefined && page.perPage > 0) {
      if (page.perPage !== this.asked) this.drifted = true;
      this.size = page.perPage;
    }
    const span = this.spanOf(page, askedPage);
    if (askedPage !== undefined && span && span.from !== (askedPage - 1) * this.asked + 1) this.drifted = true;
    if (!span) return undefined;
    this.covered ??= span.from - 1;
    return span.from > this.covered + 1 ? { from: this.covered + 1, to: span.from - 1 } : undefined;
  }

  /**
   * Where a page's items sit, as the page itself says: meta.from, else its page
   * number and meta.per_page. Undefined when it is empty or says neither (a page
   * without meta tells no position, and none is guessed).
   */
  spanOf(page: ListPage, askedPage?: number): Span | undefined {
    if (page.items.length === 0) return undefined;
    const number = page.currentPage ?? askedPage;
    const from =
      page.from ?? (number === undefined || page.perPage === undefined ? undefined : (number - 1) * page.perPage + 1);
    return from === undefined ? undefined : { from, to: from + page.items.length - 1 };
  }

  /** Positions up to `to` are done with (served, re-read, or given up on). */
  reach(to: number): void {
    this.covered = Math.max(this.covered ?? 0, to);
  }

  /**
   * The tail the pages never reached: positions after the covered end up to
   * meta.total, but only once the server was seen serving another size or start
   * than asked. Pages that kept to what was asked and ran out early are a cap
   * (a search that stops serving), which no request reaches.
   */
  tailGap(total: number | undefined): Span | undefined {
    if (!this.drifted || total === undefined || this.covered === undefined || this.covered >= total) return undefined;
    return { from: this.covered + 1, to: total };
  }

  /** The page numbers that hold `span` at `size` items a page. */
  pagesFor(span: Span, size = this.size): number[] {
    const first = Math.floor((span.from - 1) / size) + 1;
    const last = Math.floor((span.to - 1) / size) + 1;
    return Array.from({ length: last - first + 1 }, (_, i) => first + i);
  }
}
