import { describe, expect, it } from 'vitest';
import { collect, paginate } from '../../../src/api/endpoints/paginate.js';
import type { PageInfo } from '../../../src/api/endpoints/types.js';
import { FatalApiError } from '../../../src/api/errors/errors.js';

const BASE = 'https://api.example.test/v1';

/** A fake server keyed by the exact URL asked for (query order normalised). */
function pages(map: Record<string, unknown>) {
  const asked: string[] = [];
  const norm = (u: string) => {
    const url = new URL(u);
    url.searchParams.sort();
    return url.toString();
  };
  const table = new Map(Object.entries(map).map(([k, v]) => [norm(k), v]));
  const fetchPage = async (url: string) => {
    asked.push(url);
    if (!table.has(norm(url))) throw new Error(`unexpected ${url}`);
    return table.get(norm(url));
  };
  return { asked, fetchPage };
}

const ids = (items: Array<Record<string, unknown>>) => items.map((i) => i.id);

describe('paginate', () => {
  it('follows the counting paginator and reports meta to onPage', async () => {
    const meta = (page: number) => ({ current_page: page, last_page: 2, per_page: 100, total: 3, from: 1, to: 2 });
    const s = pages({
      [`${BASE}/conversations/mine?per_page=100&sort=oldest`]: {
        data: [{ id: 'a' }, { id: 'b' }],
        links: { first: '…', last: '…', prev: null, next: `${BASE}/conversations/mine?page=2` },
        meta: meta(1),
      },
      [`${BASE}/conversations/mine?page=2&per_page=100&sort=oldest`]: {
        data: [{ id: 'c' }],
        links: { prev: `${BASE}/conversations/mine?page=1`, next: null },
        meta: meta(2),
      },
    });
    const seen: PageInfo[] = [];
    const items = await collect(
      paginate(`${BASE}/conversations/mine?sort=oldest`, s.fetchPage, { onPage: (p) => seen.push(p) }),
    );
    expect(ids(items)).toEqual(['a', 'b', 'c']);
    // The next link dropped sort and per_page: both were carried over.
    expect(s.asked).toHaveLength(2);
    expect(seen).toEqual([
      { pagesRead: 1, itemsRead: 2, pageItems: 2, perPage: 100, currentPage: 1, lastPage: 2, total: 3, overlapping: 0 },
      { pagesRead: 2, itemsRead: 3, pageItems: 1, perPage: 100, currentPage: 2, lastPage: 2, total: 3, overlapping: 0 },
    ]);
  });

  it('follows the simple paginator (no total, no last_page) until links.next is null', async () => {
    const s = pages({
      [`${BASE}/inboxes/i1/tags?per_page=100`]: {
        data: [{ id: 't1' }],
        links: { next: `${BASE}/inboxes/i1/tags?page=2&per_page=100` },
        meta: { current_page: 1, per_page: 100, current_page_url: '…' },
      },
      [`${BASE}/inboxes/i1/tags?page=2&per_page=100`]: {
        data: [{ id: 't2' }],
        links: { next: null },
        meta: { current_page: 2, per_page: 100, current_page_url: '…' },
      },
    });
    expect(ids(await collect(paginate(`${BASE}/inboxes/i1/tags`, s.fetchPage)))).toEqual(['t1', 't2']);
  });

  it('unwraps the search wrapper {success, data: {conversations: <paginator>}}', async () => {
    const s = pages({
      [`${BASE}/search?per_page=100`]: {
        success: true,
        data: {
          conversations: { data: [{ id: 'x' }], links: { next: `${BASE}/search?page=2` }, meta: { current_page: 1 } },
        },
      },
      [`${BASE}/search?page=2&per_page=100`]: {
        success: true,
        data: { conversations: { data: [{ id: 'y' }], links: { next: null }, meta: { current_page: 2 } } },
      },
    });
    expect(ids(await collect(paginate(`${BASE}/search`, s.fetchPage, { method: 'POST' })))).toEqual(['x', 'y']);
  });

  it('reads plain arrays and {data: [...]} as one page', async () => {
    const s = pages({ [`${BASE}/inboxes?per_page=100`]: [{ id: 1 }, { id: 2 }] });
    expect(ids(await collect(paginate(`${BASE}/inboxes`, s.fetchPage)))).toEqual([1, 2]);
    const d = pages({ [`${BASE}/inboxes?per_page=100`]: { data: [{ id: 3 }] } });
    expect(ids(await collect(paginate(`${BASE}/inboxes`, d.fetchPage)))).toEqual([3]);
    expect(d.asked).toHaveLength(1);
  });

  it('without links, walks meta.current_page up to meta.last_page', async () => {
    const s = pages({
      [`${BASE}/x?per_page=100`]: { data: [{ id: 1 }], meta: { current_page: 1, last_page: 2 } },
      [`${BASE}/x?page=2&per_page=100`]: { data: [{ id: 2 }], meta: { current_page: 2, last_page: 2 } },
    });
    expect(ids(await collect(paginate(`${BASE}/x`, s.fetchPage)))).toEqual([1, 2]);
  });

  it("reads Laravel's flat paginator (next_page_url beside data)", async () => {
    const s = pages({
      [`${BASE}/x?per_page=100`]: { current_page: 1, data: [{ id: 1 }], next_page_url: `${BASE}/x?page=2` },
      [`${BASE}/x?page=2&per_page=100`]: { current_page: 2, data: [{ id: 2 }], next_page_url: null },
    });
    expect(ids(await collect(paginate(`${BASE}/x`, s.fetchPage)))).toEqual([1, 2]);
  });

  it('stops with API_PAGINATION_LOOP when the same next link comes twice', async () => {
    const s = pages({
      [`${BASE}/x?per_page=100`]: { data: [{ id: 1 }], links: { next: `${BASE}/x?page=2` } },
      [`${BASE}/x?page=2&per_page=100`]: { data: [{ id: 2 }], links: { next: `${BASE}/x?page=2` } },
    });
    const error = await collect(paginate(`${BASE}/x`, s.fetchPage)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FatalApiError);
    expect(error).toMatchObject({ code: 'API_PAGINATION_LOOP' });
    expect((error as Error).message).toMatch(/Loop detected in pagination/);
    expect(s.asked).toHaveLength(2);
  });

  it('stops with API_PAGINATION_LOOP when meta.current_page does not move', async () => {
    const s = pages({
      [`${BASE}/x?per_page=100`]: { data: [{ id: 1 }], links: { next: `${BASE}/x?page=2` }, meta: { current_page: 1 } },
      [`${BASE}/x?page=2&per_page=100`]: {
        data: [{ id: 1 }],
        links: { next: `${BASE}/x?page=3` },
        meta: { current_page: 1 },
      },
    });
    await expect(collect(paginate(`${BASE}/x`, s.fetchPage))).rejects.toMatchObject({ code: 'API_PAGINATION_LOOP' });
  });

  it('never follows a next link to another host: it is rebased onto the configured origin', async () => {
    const s = pages({
      [`${BASE}/x?per_page=100`]: { data: [{ id: 1 }], links: { next: 'http://internal:8080/v1/x?page=2' } },
      [`${BASE}/x?page=2&per_page=100`]: { data: [{ id: 2 }], links: { next: null } },
    });
    expect(ids(await collect(paginate(`${BASE}/x`, s.fetchPage)))).toEqual([1, 2]);
    expect(s.asked.every((u) => u.startsWith(BASE))).toBe(true);
  });

  it('refuses an unknown shape or non-object items instead of dropping data', async () => {
    const odd = pages({ [`${BASE}/x?per_page=100`]: { data: { a: 1, b: 2 } } });
    await expect(collect(paginate(`${BASE}/x`, odd.fetchPage))).rejects.toMatchObject({ code: 'API_BAD_RESPONSE' });
    const items = pages({ [`${BASE}/x?per_page=100`]: [{ id: 1 }, 'two'] });
    await expect(collect(paginate(`${BASE}/x`, items.fetchPage))).rejects.toMatchObject({ code: 'API_BAD_RESPONSE' });
  });

  it('omits per_page when asked to (unpaginated endpoints)', async () => {
    const s = pages({ [`${BASE}/holidays`]: [{ id: 'h' }] });
    expect(ids(await collect(paginate(`${BASE}/holidays`, s.fetchPage, { perPage: null })))).toEqual(['h']);
  });
});
