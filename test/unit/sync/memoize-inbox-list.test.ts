import { describe, expect, it } from 'vitest';
import { memoizeInboxList } from '../../../src/sync/memoize-inbox-list.js';
import { FakeHelpdesk } from './fake-helpdesk.js';

async function ids(items: AsyncIterable<Record<string, unknown>>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const i of items) out.push(i.id);
  return out;
}

describe('memoizeInboxList', () => {
  it('reads the inbox list once, passes every other call through', async () => {
    const api = new FakeHelpdesk();
    api.inboxes = [{ id: 'a' }, { id: 'b' }];
    const memo = memoizeInboxList(api);
    expect(await ids(memo.listInboxes())).toEqual(['a', 'b']);
    expect(await ids(memo.listInboxes())).toEqual(['a', 'b']);
    expect(await memo.listHolidays()).toEqual([]);
    expect(api.requests).toEqual(['GET /inboxes page=1', 'GET /holidays']);
  });

  it('keeps nothing from a listing that was not read to its end', async () => {
    const api = new FakeHelpdesk();
    api.inboxes = [{ id: 'a' }, { id: 'b' }];
    const memo = memoizeInboxList(api);
    for await (const _ of memo.listInboxes()) break;
    expect(await ids(memo.listInboxes())).toEqual(['a', 'b']);
    expect(api.count('GET /inboxes')).toBe(2);
  });
});
