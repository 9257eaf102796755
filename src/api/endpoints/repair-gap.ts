import { API_ERROR_CODES, ApiError } from '../errors/errors.js';
import type { ListCoverage, Span } from './list-coverage.js';
import { type ListPage, listPageOf } from './list-page.js';
import type { ApiObject } from './types.js';

/** Fetches one page: the parsed JSON body at that absolute URL. */
export type PageFetcher = (url: string) => Promise<unknown>;

/** Limits: per-page is at most 100. */
const MAX_PER_PAGE = 100;

/** Pages asked at another size for one gap, at most (each a request of its own). */
const OTHER_SIZE_ASKS = 4;

/**
 * An item the listing served right next to a gap, at its position. A re-read
 * answer that covers that position must show the same item there, and must not
 * show it anywhere else: otherwise the list moved since (an item deleted or
 * added ahead of it) and positions in that answer name other items than the
 * gap's, so the answer is not used.
 */
export interface Anchor {
  position: number;
  id: string;
}

/** What a gap's re-read works with: where the gap was seen and what surrounds it. */
export interface GapContext {
  /** The list's URL as the page that showed the gap was asked (its query kept: sort, search). */
  at: URL;
  coverage: ListCoverage;
  fetchPage: PageFetcher;
  /** Method shown in errors. */
  method: string;
  /** meta.total: mirrors a position into the other sort order. */
  total?: number;
  /**
   * Where the gap's items are: the gap itself after a full page, or from the
   * start of the page before it when that page came back short (its meta
   * placed its items from its start, so the missing ones may sit anywhere
   * among them).
   */
  window: Span;
  /** Ids the listing served inside the window (the short page's): never taken for the gap's. */
  known: ReadonlySet<string>;
  /** The item served just before the window, and just after it. */
  before?: Anchor;
  after?: Anchor;
}

/** What re-reading a gap gave. */
export interface GapRead {
  /** The items found, in list order. */
  items: ApiObject[];
  /** Pages asked for. */
  requests: number;
  /** Items of the gap no answer served. */
  missing: number;
}

/** An item's id as text, for comparing items across answers; undefined when it has none. */
export function itemId(item: ApiObject): string | undefined {
  const id = item.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** A page whose body stayed unreadable (cut short, wrong shape) after the queue's retries. */
export function isUnreadablePage(error: unknown): boolean {
  return error instanceof ApiError && error.code === API_ERROR_CODES.badResponse;
}

/**
 * Re-reads a gap of a list (docs/streams.md, "Completeness"), trying in turn
 * what the API document allows (Limits: page 1-indexed, per-page 1 to 100,
 * sort newest or oldest) until as many items as the gap has positions are
 * found:
 *
 * 1. the pages holding the window at the size the server was last seen to
 *    serve, and once more at the size such an answer shows (a size changed
 *    mid-scan);
 * 2. the pages around it at the size the listing asks (a page answered wrongly
 *    once, right now);
 * 3. the largest other page size whose pages holding the window all have
 *    numbers not asked yet (a server, a cache or a canary whose answer depends
 *    on the page number);
 * 4. the other sort order, where position p is position total − p + 1.
 *
 * An answer is used only when it agrees with the items served on either side
 * of the window (see Anchor); from it, an item at a position in the window
 * that the listing did not serve there is one of the gap's. An answer that
 * stays unreadable ends the re-read with what was found. Every request is
 * counted; what no step reaches is returned as `missing`.
 */
export async function readGap(gap: Span, ctx: GapContext): Promise<GapRead> {
  const reader = new GapReader(gap.to - gap.from + 1, ctx);
  await reader.atServedSize();
  await reader.around();
  await reader.atOtherSize();
  await reader.inOtherOrder();
  return { items: reader.items(), requests: reader.requests, missing: reader.missing() };
}

class GapReader {
  /** id → the gap's item and its position. */
  readonly #found = new Map<string, { position: number; item: ApiObject }>();
  /** `order|page|size` of every page asked. */
  readonly #asked = new Set<string>();
  /** `order|page` of every page asked, at any size. */
  readonly #pages = new Set<string>();
  #stopped = false;
  requests = 0;

  constructor(
    readonly wanted: number,
    readonly ctx: GapContext,
  ) {}

  items(): ApiObject[] {
    return [...this.#found.values()].sort((a, b) => a.position - b.position).map((f) => f.item);
  }

  missing(): number {
    return Math.max(0, this.wanted - this.#found.size);
  }

  get #done(): boolean {
    return this.#stopped || this.missing() === 0;
  }

  async atServedSize(): Promise<void> {
    const { coverage, window } = this.ctx;
    let size = coverage.size;
    for (let round = 0; round < 2 && !this.#done; round++) {
      let served = size;
      for (const page of coverage.pagesFor(window, size)) {
        const answered = await this.#ask(page, size, false);
        if (answered !== undefined && answered > 0) served = answered;
      }
      // The server kept to the size asked: another round at it would ask the same pages.
      if (served === size) return;
      size = served;
    }
  }

  async around(): Promise<void> {
    const { window, coverage } = this.ctx;
    const size = coverage.asked;
    const pages = new Set<number>();
    if (window.from > 1) pages.add(Math.floor((window.from - 2) / size) + 1);
    pages.add(Math.floor(window.to / size) + 1);
    for (const page of pages) if (!this.#done) await this.#ask(page, size, false);
  }

  async atOtherSize(): Promise<void> {
    const { window, coverage } = this.ctx;
    if (this.#done) return;
    for (let size = MAX_PER_PAGE; size >= 1; size--) {
      const pages = coverage.pagesFor(window, size);
      if (pages.length > OTHER_SIZE_ASKS) return;
      if (pages.some((page) => this.#pages.has(`0|${page}`))) continue;
      for (const page of pages) if (!this.#done) await this.#ask(page, size, false);
      return;
    }
  }

  async inOtherOrder(): Promise<void> {
    const { total, at, coverage, window } = this.ctx;
    const sort = at.searchParams.get('sort') ?? 'newest';
    if (this.#done || total === undefined || (sort !== 'newest' && sort !== 'oldest')) return;
    // The mirrored window, one more position on each side: where the anchors must show again.
    const from = Math.max(1, total - window.to);
    const to = Math.min(total, total - window.from + 2);
    if (from > to) return;
    for (const page of coverage.pagesFor({ from, to }, coverage.asked)) {
      if (!this.#done) await this.#ask(page, coverage.asked, true);
    }
  }

  /**
   * Asks one page (in the other sort order when `flipped`), keeps the gap's
   * items it holds, and returns the size it was served at (meta.per_page);
   * undefined when nothing was asked or the answer said none.
   */
  async #ask(page: number, size: number, flipped: boolean): Promise<number | undefined> {
    const order = flipped ? 1 : 0;
    const key = `${order}|${page}|${size}`;
    if (this.#stopped || this.#asked.has(key)) return undefined;
    this.#asked.add(key);
    this.#pages.add(`${order}|${page}`);
    const url = new URL(this.ctx.at);
    url.searchParams.set('page', String(page));
    url.searchParams.set('per_page', String(size));
    if (flipped)
      url.searchParams.set('sort', (url.searchParams.get('sort') ?? 'newest') === 'oldest' ? 'newest' : 'oldest');
    this.requests += 1;
    let answer: ListPage;
    try {
      answer = listPageOf(await this.ctx.fetchPage(url.toString()), { method: this.ctx.method, url: url.toString() });
    } catch (error) {
      if (!isUnreadablePage(error)) throw error;
      this.#stopped = true;
      return undefined;
    }
    const span = this.ctx.coverage.spanOf(answer, page);
    if (span) this.#take(answer.items, (i) => (flipped ? (this.ctx.total ?? 0) - (span.from + i) + 1 : span.from + i));
    return answer.perPage;
  }

  /** Keeps, from an answer that agrees with the anchors, the items in the window the listing did not serve there. */
  #take(items: ApiObject[], positionOf: (i: number) => number): void {
    const { window, known } = this.ctx;
    const anchors = [this.ctx.before, this.ctx.after].filter((a): a is Anchor => a !== undefined);
    const agrees = items.every((item, i) => {
      const id = itemId(item);
      const position = positionOf(i);
      return anchors.every((a) => (id === a.id) === (position === a.position));
    });
    if (!agrees) return;
    items.forEach((item, i) => {
      const id = itemId(item);
      const position = positionOf(i);
      if (id === undefined || known.has(id) || this.#found.has(id) || this.missing() === 0) return;
      if (position >= window.from && position <= window.to) this.#found.set(id, { position, item });
    });
  }
}
