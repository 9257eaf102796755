import { beforeEach, describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '../../../../src/catalog/catalog.js';
import type { CompletenessFigure } from '../../../../src/streams/completeness.js';
import type { SyncSummary } from '../../../../src/sync/run-sync.js';
import { FakeHelpdesk } from '../../sync/fake-helpdesk.js';
import { FakeStore } from '../../sync/fake-output.js';
import { HelpdeskWorld } from '../../sync/helpdesk-world.js';
import { syncOnce } from '../../sync/sync-harness.js';

function figure(summary: SyncSummary, stream: string): CompletenessFigure {
  const found = summary.completeness.find((f) => f.stream === stream);
  if (!found) throw new Error(`no completeness figure for ${stream}`);
  return found;
}

const incomplete = (summary: SyncSummary) => summary.warnings.filter((w) => w.code === 'INCOMPLETE');

describe('completeness figures of a sync', () => {
  let api: FakeHelpdesk;
  let world: HelpdeskWorld;
  let store: FakeStore;

  beforeEach(() => {
    api = new FakeHelpdesk();
    world = new HelpdeskWorld(api);
    world.seed({ conversations: 250, contacts: 12 });
    store = new FakeStore();
  });

  it('every stream that finished has a figure; a quiet account is complete with nothing to explain', async () => {
    const { summary } = await syncOnce(api, store);
    expect(summary.completeness.map((f) => f.stream).sort()).toEqual([...STREAM_NAMES].sort());
    expect(figure(summary, 'conversations')).toEqual({
      stream: 'conversations',
      expected: 250,
      live: 250,
      explained: [],
      unexplained: 0,
    });
    expect(figure(summary, 'contacts')).toMatchObject({ expected: 12, live: 12, unexplained: 0 });
    expect(figure(summary, 'tags')).toMatchObject({ expected: 2, live: 2, unexplained: 0 });
    // Reports: every day from the start date (2026-03-01) to today (2026-03-10), for both inboxes.
    expect(figure(summary, 'reports')).toMatchObject({ expected: 20, live: 20, unexplained: 0 });
    expect(incomplete(summary)).toEqual([]);
  });

  it('a search cap explains what was never listed, and nothing is called missing', async () => {
    api.listCap = 150;
    const { summary } = await syncOnce(api, store);
    expect(figure(summary, 'conversations')).toEqual({
      stream: 'conversations',
      expected: 250,
      live: 150,
      explained: [{ reason: 'past_search_cap', count: 100 }],
      unexplained: 0,
    });
    expect(incomplete(summary)).toEqual([]);
  });

  it('a conversation missing mid-list is INCOMPLETE, with the numbers, until the listing shows it again', async () => {
    const hidden = world.conversationIds()[40] as string;
    api.hiddenIds.add(hidden);
    const first = await syncOnce(api, store);
    expect(figure(first.summary, 'conversations')).toMatchObject({ expected: 250, live: 249, unexplained: 1 });
    expect(figure(first.summary, 'messages')).toMatchObject({ expected: 250, live: 249, unexplained: 1 });
    const warnings = incomplete(first.summary).map((w) => w.message);
    expect(warnings).toContain(
      'conversations: the API says 250 exist, the state holds 249 after this run; 1 missing for no known reason',
    );
    api.hiddenIds.clear();
    const cleared = await syncOnce(api, store);
    expect(figure(cleared.summary, 'conversations')).toMatchObject({ expected: 250, live: 250, unexplained: 0 });
    expect(incomplete(cleared.summary)).toEqual([]);
  });

  it('a conversation held from an earlier run that the listing stops showing is reported too', async () => {
    await syncOnce(api, store);
    api.hiddenIds.add(world.conversationIds()[40] as string);
    const { summary } = await syncOnce(api, store);
    // Its view still answers: kept (explained), yet the listing lacks one the API counts.
    expect(figure(summary, 'conversations')).toEqual({
      stream: 'conversations',
      expected: 250,
      live: 250,
      explained: [{ reason: 'kept_unlisted', count: -1 }],
      unexplained: 1,
    });
    expect(incomplete(summary)).toHaveLength(2);
  });

  it('threads answering 403 explain the messages shortfall; listed items without an id are rejected rows', async () => {
    const [a, b] = world.conversationIds() as [string, string];
    api.forbiddenThreads.add(a);
    api.forbiddenThreads.add(b);
    api.conversations.set('no-id', { subject: 'no id', created_at: world.ts() });
    const { summary } = await syncOnce(api, store);
    expect(figure(summary, 'messages')).toEqual({
      stream: 'messages',
      expected: 251,
      live: 248,
      explained: [
        { reason: 'rejected', count: 1 },
        { reason: 'threads_forbidden', count: 2 },
      ],
      unexplained: 0,
    });
    expect(figure(summary, 'conversations')).toMatchObject({ expected: 251, live: 250, unexplained: 0 });
    expect(incomplete(summary)).toEqual([]);
  });

  it('pages that shift during the scan explain the conversation they skip', async () => {
    await syncOnce(api, store);
    const ids = world.conversationIds();
    // Deleted behind the scan: the later pages move up by one and one conversation is skipped
    // (kept: its view answers); the deleted one is still held until the next run.
    api.beforePage = (page) => {
      if (page === 2) world.forceDelete(ids[10] as string);
    };
    const { summary } = await syncOnce(api, store);
    expect(figure(summary, 'conversations')).toEqual({
      stream: 'conversations',
      expected: 249,
      live: 250,
      explained: [{ reason: 'kept_unlisted', count: -1 }],
      unexplained: 0,
    });
    expect(incomplete(summary)).toEqual([]);
  });

  it('a report day of an inbox that vanished is explained; a users list the token may not read has no figure', async () => {
    api.users = 'forbidden';
    const report = api.report.bind(api);
    api.report = (inboxId, day) => {
      if (inboxId === 'inbox-2' && day >= '2026-03-05') throw Object.assign(new Error('gone'), { status: 404 });
      return report(inboxId, day);
    };
    const { summary } = await syncOnce(api, store);
    expect(summary.completeness.map((f) => f.stream)).not.toContain('users');
    expect(figure(summary, 'reports')).toEqual({
      stream: 'reports',
      expected: 20,
      live: 14,
      explained: [{ reason: 'inbox_gone', count: 6 }],
      unexplained: 0,
    });
  });

  it('report days of an inbox the token may not read are explained; every inbox refused: no figure', async () => {
    const report = api.report.bind(api);
    let refused = 'inbox-2';
    api.report = (inboxId, day) => {
      if (inboxId === refused || refused === 'all') throw Object.assign(new Error('forbidden'), { status: 403 });
      return report(inboxId, day);
    };
    const { summary } = await syncOnce(api, store);
    expect(figure(summary, 'reports')).toEqual({
      stream: 'reports',
      expected: 20,
      live: 10,
      explained: [{ reason: 'inbox_forbidden', count: 10 }],
      unexplained: 0,
    });
    expect(incomplete(summary)).toEqual([]);
    refused = 'all';
    const second = await syncOnce(api, store);
    expect(second.summary.completeness.map((f) => f.stream)).not.toContain('reports');
  });

  it('no figure for a stream that did not finish: the summary says it was not measured', async () => {
    const controller = new AbortController();
    api.beforePage = (page) => {
      if (page === 2) controller.abort();
    };
    const { summary } = await syncOnce(api, store, { signal: controller.signal });
    expect(summary.status).toBe('interrupted');
    expect(summary.completeness.map((f) => f.stream)).not.toContain('conversations');
  });
});
