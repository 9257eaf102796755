import { describe, expect, it } from 'vitest';
import { ListCoverage } from '../../../src/api/endpoints/list-coverage.js';
import { collect, paginate } from '../../../src/api/endpoints/paginate.js';
import type { ListRepair, PageInfo, PageSkip } from '../../../src/api/endpoints/types.js';
import { RetriableApiError } from '../../../src/api/errors/errors.js';

const BASE = 'https://api.example.test/v1/search';

interface ListServerOptions {
  /** The size a page is served at, given its number and the per_page asked. @default the one asked */
  sizeOf?: (page: number, asked: number) => number;
  /** Positions (oldest first) left out of every page while meta still counts them. */
  hidden?: Set<number>;
  /** Positions (oldest first) left out of the pages of one sort order only. */
  hiddenWhenSorted?: { sort: 'oldest' | 'newest'; positions: Set<number> };
  /** `sort` is read (newest reverses the list); otherwise every order is the same. */
  sorts?: boolean;
  /** Page numbers answered with an unreadable body (as the queue's retries end). */
  unreadable?: Set<number>;
}

/**
 * A counting paginator over items c1..c<total> (oldest first), as Laravel serves it: links ask
 * the per_page asked, meta tells the size served.
 */
function listServer(total: number, o: ListServerOptions = {}) {
  const asked: string[] = [];
  const fetchPage = async (url: string) => {
    asked.push(url);
    const u = new URL(url);
    const page = Number(u.searchParams.get('page') ?? 1);
    const perPage = Number(u.searchParams.get('per_page') ?? 20);
    const sort = o.sorts ? (u.searchParams.get('sort') ?? 'newest') : 'oldest';
    if (o.unreadable?.has(page)) {
      throw new RetriableApiError({ code: 'API_BAD_RESPONSE', method: 'POST', url, message: 'wrong shape' });
    }
    const size = o.sizeOf?.(page, perPage) ?? perPage;
    const from = (page - 1) * size + 1;
    const positions = Array.from({ length: Math.max(0, Math.min(size, total - from + 1)) }, (_, i) => from + i);
    const lastPage = Math.max(1, Math.ceil(total / size));
    const link = (p: number) => `${BASE}?page=${p}&per_page=${perPage}`;
    // The item at a position of this order, by its position oldest first.
    const oldest = (p: number) => (sort === 'newest' ? total - p + 1 : p);
    const shown = (p: number) =>
      !o.hidden?.has(oldest(p)) && !(o.hiddenWhenSorted?.sort === sort && o.hiddenWhenSorted.positions.has(oldest(p)));
    return {
      data: positions.filter(shown).map((p) => ({ id: `c${oldest(p)}` })),
      links: { next: page < lastPage ? link(page + 1) : null },
      meta: {
        current_page: page,
        from: positions.length > 0 ? from : null,
        per_page: size,
        last_page: lastPage,
        total,
      },
    };
  };
  return { fetchPage, asked };
}

const ids = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `c${from + i}`);

async function read(total: number, o: ListServerOptions & { skip?: boolean; url?: string } = {}) {
  const server = listServer(total, o);
  const repairs: ListRepair[] = [];
  const skips: PageSkip[] = [];
  const pages: PageInfo[] = [];
  const items = await collect(
    paginate(o.url ?? BASE, server.fetchPage, {
      repair: true,
      onRepair: (r) => repairs.push(r),
      onPage: (p) => pages.push(p),
      ...(o.skip ? { onPageSkipped: (s: PageSkip) => skips.push(s) } : {}),
    }),
  );
  return { items: items.map((i) => i.id), repairs, skips, pages, asked: server.asked };
}

describe('paginate with repair: a listing that re-reads what its pages show missing', () => {
  it('reads a list whose pages keep to the size asked with no repair and no extra request', async () => {
    const r = await read(250);
    expect(r.items).toEqual(ids(250));
    expect(r.repairs).toEqual([]);
    expect(r.asked).toHaveLength(3);
  });

  it('re-reads the range a larger page size skipped mid-list, by page number at the size served', async () => {
    // Pages 1-2 at 100, then 150 from page 3: page 3 starts at 301, so 201-300 were never served.
    const r = await read(425, { sizeOf: (page, asked) => (page >= 3 ? 150 : asked) });
    expect(r.items).toEqual(ids(425));
    expect(r.repairs).toEqual([
      { from: 201, to: 300, recovered: 100, requests: 1, missing: 0, within: { from: 201, to: 300 } },
    ]);
    expect(r.asked.at(-1)).toBe(`${BASE}?page=2&per_page=150`);
    // The re-read items are handed out with the page that showed the gap, before its own.
    expect(r.pages.map((p) => p.pageItems)).toEqual([100, 100, 225]);
  });

  it('re-reads a tail the links never reach once the size changed (an empty page past the new last page)', async () => {
    // 217 items: page 3 at 150 starts past the end, so the last 17 are in no page the links name.
    const r = await read(217, { sizeOf: (page, asked) => (page >= 3 ? 150 : asked) });
    expect(r.items).toEqual(ids(217));
    expect(r.repairs).toEqual([
      { from: 201, to: 217, recovered: 17, requests: 1, missing: 0, within: { from: 201, to: 217 } },
    ]);
  });

  it('needs no repair when the size shrinks: pages overlap, and every item is still served', async () => {
    const r = await read(260, { sizeOf: (page, asked) => (page >= 2 ? 60 : asked) });
    expect(new Set(r.items)).toEqual(new Set(ids(260)));
    expect(r.repairs).toEqual([]);
  });

  it('gives up on an item no request reaches after every way the document allows, and names the hole', async () => {
    // Page 2 comes back one short while its meta places its items from 101: position 200 is in
    // no page, and the missing item may sit anywhere in 101-200.
    const r = await read(300, { hidden: new Set([150]) });
    // No item is taken twice, nor taken for the hole: c200 was served (as page 2's last) already.
    expect(r.items).toEqual(ids(300).filter((id) => id !== 'c150'));
    expect(r.repairs).toEqual([
      { from: 200, to: 200, recovered: 0, requests: 10, missing: 1, within: { from: 101, to: 200 } },
    ]);
    // The page again, the pages around it, another size on pages not asked yet, then the other
    // order (mirrored 101-200 of 300, one more on each side: 100-201, pages 1-3): each counted.
    expect(r.asked.slice(3)).toEqual([
      `${BASE}?page=2&per_page=100`,
      `${BASE}?page=1&per_page=100`,
      `${BASE}?page=3&per_page=100`,
      `${BASE}?page=4&per_page=33`,
      `${BASE}?page=5&per_page=33`,
      `${BASE}?page=6&per_page=33`,
      `${BASE}?page=7&per_page=33`,
      `${BASE}?page=1&per_page=100&sort=oldest`,
      `${BASE}?page=2&per_page=100&sort=oldest`,
      `${BASE}?page=3&per_page=100&sort=oldest`,
    ]);
  });

  it('reaches a hole that only other page numbers reach (a canary serving even pages at another size)', async () => {
    // Odd pages keep per_page (at most 100); even pages come at 120 whatever is asked. Page 2
    // starts at 121: 101-120 are in no page, and neither page 1 at 120 (clamped to 100) nor
    // page 2 at 100 (120 again) serves them. Page 3 at 50 does.
    const r = await read(230, {
      sizeOf: (page, asked) => (page % 2 === 0 ? 120 : Math.min(asked, 100)),
    });
    expect(r.items).toEqual(ids(230));
    expect(r.repairs).toEqual([
      { from: 101, to: 120, recovered: 20, requests: 4, missing: 0, within: { from: 101, to: 120 } },
    ]);
    expect(r.asked.slice(2)).toEqual([
      `${BASE}?page=1&per_page=120`,
      `${BASE}?page=2&per_page=100`,
      `${BASE}?page=1&per_page=100`,
      `${BASE}?page=3&per_page=50`,
    ]);
  });

  it('reaches a hole that only the other sort order reaches, by mirrored positions', async () => {
    // An index that lost 101-120 in oldest-first order only: page 2 comes back 20 short (its meta
    // placing c121-c200 at 101-180), so 181-200 are in no page. Newest first, the window 101-200
    // is 31-130 of 230, and there the 20 are served.
    const r = await read(230, {
      sorts: true,
      url: `${BASE}?sort=oldest`,
      hiddenWhenSorted: { sort: 'oldest', positions: new Set(Array.from({ length: 20 }, (_, i) => 101 + i)) },
    });
    expect(new Set(r.items)).toEqual(new Set(ids(230)));
    expect(r.items).toHaveLength(230);
    expect(r.repairs).toEqual([
      { from: 181, to: 200, recovered: 20, requests: 9, missing: 0, within: { from: 101, to: 200 } },
    ]);
    expect(r.asked.filter((url) => url.includes('sort=newest'))).toEqual([
      `${BASE}?page=1&per_page=100&sort=newest`,
      `${BASE}?page=2&per_page=100&sort=newest`,
    ]);
  });

  it('takes nothing from an order the server does not honour: the items beside the hole disagree', async () => {
    // The hole's items are hidden in every answer, and `sort` is ignored: mirrored positions
    // would name other conversations (already listed or still ahead); none is taken.
    const hidden = new Set(Array.from({ length: 20 }, (_, i) => 101 + i));
    const r = await read(230, { url: `${BASE}?sort=oldest`, hidden });
    expect(r.items).toEqual(ids(230).filter((_, i) => !hidden.has(i + 1)));
    expect(new Set(r.items).size).toBe(r.items.length);
    expect(r.repairs).toMatchObject([{ recovered: 0, missing: 20, within: { from: 101, to: 200 } }]);
  });

  it('does not re-read a tail the pages ran out before while keeping to the size asked (a cap)', async () => {
    const server = listServer(40);
    const capped = async (url: string) => {
      const body = (await server.fetchPage(url)) as { data: unknown[]; meta: { total: number } };
      return { ...body, data: body.data.slice(0, 15), meta: { ...body.meta, total: 90 } };
    };
    const items = await collect(paginate(BASE, capped, { repair: true }));
    expect(items).toHaveLength(15);
    expect(server.asked).toHaveLength(1);
  });

  it('skips an unreadable page when later pages are known, telling its items, and goes on', async () => {
    const r = await read(250, { unreadable: new Set([2]), skip: true });
    expect(r.items).toEqual([...ids(100), ...ids(50, 201)]);
    expect(r.skips).toMatchObject([{ page: 2, items: 100 }]);
    // No repair of the skipped page's positions: it was given up on, and is read by the next run.
    expect(r.repairs).toEqual([]);
  });

  it('without onPageSkipped, or on the first page, an unreadable page ends the list with its error', async () => {
    await expect(read(250, { unreadable: new Set([2]) })).rejects.toMatchObject({ code: 'API_BAD_RESPONSE' });
    await expect(read(250, { unreadable: new Set([1]), skip: true })).rejects.toMatchObject({
      code: 'API_BAD_RESPONSE',
    });
  });
});

describe('ListCoverage', () => {
  it('tells the pages that hold a span at a size', () => {
    const c = new ListCoverage(100);
    expect(c.pagesFor({ from: 201, to: 300 }, 150)).toEqual([2]);
    expect(c.pagesFor({ from: 140, to: 310 }, 150)).toEqual([1, 2, 3]);
    expect(c.pagesFor({ from: 1, to: 1 })).toEqual([1]);
  });

  it('guesses no position for a page that says neither meta.from nor meta.per_page', () => {
    const c = new ListCoverage(100);
    expect(c.spanOf({ items: [{ id: 'a' }], currentPage: 2 })).toBeUndefined();
    expect(c.spanOf({ items: [{ id: 'a' }], currentPage: 2, perPage: 50 })).toEqual({ from: 51, to: 51 });
    expect(c.spanOf({ items: [{ id: 'a' }], from: 7 })).toEqual({ from: 7, to: 7 });
  });
});
