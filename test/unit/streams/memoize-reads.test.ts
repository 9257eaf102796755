import { describe, expect, it } from 'vitest';
import { memoizeReads } from '../../../src/streams/memoize-reads.js';
import { FakeHelpdesk } from '../sync/fake-helpdesk.js';

async function ids(items: AsyncIterable<Record<string, unknown>>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const i of items) out.push(i.id);
  return out;
}

const INBOXES = { path: '/inboxes', paginator: 'pages' } as const;
const TAGS = { path: '/inboxes/{inbox_id}/tags', paginator: 'pages' } as const;

describe('memoizeReads', () => {
  it('sends a read without a query once per run, passes every other call through', async () => {
    const api = new FakeHelpdesk();
    api.inboxes = [{ id: 'a' }, { id: 'b' }];
    const memo = memoizeReads(api);
    expect(await ids(memo.read(INBOXES))).toEqual(['a', 'b']);
    expect(await ids(memo.read(INBOXES))).toEqual(['a', 'b']);
    expect(await memo.listHolidays()).toEqual([]);
    expect(api.requests).toEqual(['GET /inboxes page=1', 'GET /holidays']);
  });

  it('tells reads apart by their filled path and sends a read with a query every time', async () => {
    const api = new FakeHelpdesk();
    api.tags.set('a', [{ id: 't1' }]);
    api.tags.set('b', [{ id: 't2' }]);
    const memo = memoizeReads(api);
    expect(await ids(memo.read({ ...TAGS, params: { inbox_id: 'a' } }))).toEqual(['t1']);
    expect(await ids(memo.read({ ...TAGS, params: { inbox_id: 'b' } }))).toEqual(['t2']);
    expect(await ids(memo.read({ ...TAGS, params: { inbox_id: 'a' } }))).toEqual(['t1']);
    const day = { path: '/reports/{inbox_id}/productivity', paginator: 'single', params: { inbox_id: 'a' } } as const;
    const query = { start_date: '2026-03-01', end_date: '2026-03-01' };
    await ids(memo.read({ ...day, query }));
    await ids(memo.read({ ...day, query }));
    expect(api.count('GET /inboxes/a/tags')).toBe(1);
    expect(api.count('GET /inboxes/b/tags')).toBe(1);
    expect(api.count('GET /reports/a/productivity')).toBe(2);
  });

  it('keeps nothing from a listing that was not read to its end', async () => {
    const api = new FakeHelpdesk();
    api.inboxes = [{ id: 'a' }, { id: 'b' }];
    const memo = memoizeReads(api);
    for await (const _ of memo.read(INBOXES)) break;
    expect(await ids(memo.read(INBOXES))).toEqual(['a', 'b']);
    expect(api.count('GET /inboxes')).toBe(2);
  });
});
