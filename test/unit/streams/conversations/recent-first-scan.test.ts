import { beforeEach, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../../src/streams/scopes.js';
import { FakeHelpdesk } from '../../sync/fake-helpdesk.js';
import { FakeStore, idsOf } from '../../sync/fake-output.js';
import { HelpdeskWorld } from '../../sync/helpdesk-world.js';
import { type SyncCall, syncOnce, testConfig } from '../../sync/sync-harness.js';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const DAY = 86_400_000;
const COUNT = 250;
/** Conversation k (0 = oldest) was created (COUNT - k) × 0.4 days ago: 100 days in all, 75 in the last 30. */
const ageDays = (k: number) => (COUNT - k) * 0.4;

function recentFirst(extra: Record<string, unknown> = {}) {
  return testConfig({ conversations: { first_sync: 'recent_first', recent_days: 30, ...extra } });
}

const conversationGets = (api: FakeHelpdesk, from: number) =>
  api.requests.slice(from).filter((r) => /^GET \/conversation\/[^/]+$/.test(r));

describe('recent-first first sync', () => {
  let api: FakeHelpdesk;
  let world: HelpdeskWorld;
  let store: FakeStore;
  let ids: string[];

  beforeEach(() => {
    api = new FakeHelpdesk();
    api.pageSize = 20;
    world = new HelpdeskWorld(api);
    world.seed({ conversations: COUNT, contacts: 10 });
    ids = world.conversationIds();
    ids.forEach((id, k) => {
      const c = api.conversations.get(id) as Record<string, unknown>;
      c.created_at = new Date(NOW - ageDays(k) * DAY).toISOString();
    });
    store = new FakeStore();
  });

  /** Every committed conversation row (tombstones apart), in commit order. */
  const committedConversations = () =>
    store.committed.filter((r) => r.table === 'conversations' && !r.deleted).map((r) => String(r.record.id));

  it('commits the last recent_days first (newest first), then backfills the rest oldest first, each conversation once', async () => {
    const afterFirstCommit: string[][] = [];
    const call: SyncCall = {
      config: recentFirst(),
      prepare: (output) => {
        const checkpoint = output.checkpoint.bind(output);
        output.checkpoint = async () => {
          await checkpoint();
          afterFirstCommit.push(committedConversations());
        };
      },
    };
    const { summary, requestsBefore } = await syncOnce(api, store, call);
    const recent = ids.filter((_, k) => ageDays(k) <= 30);
    expect(recent).toHaveLength(75);
    // The first commit with conversations: every recent one, and only the newest pages.
    const first = afterFirstCommit.find((c) => c.length > 0) as string[];
    expect(first).toEqual(expect.arrayContaining(recent));
    expect(first.every((id) => ids.indexOf(id) >= COUNT - 80)).toBe(true);
    // Newest-first pages up to the first one reaching past 30 days, then the whole list oldest first.
    expect(api.pageSorts).toEqual([...Array(4).fill('newest'), ...Array(13).fill('oldest')]);
    const written = committedConversations();
    expect(written.sort()).toEqual([...ids].sort());
    expect(conversationGets(api, requestsBefore)).toEqual([]);
    expect(store.state.get(SCOPES.backfill)?.size ?? 0).toBe(0);
    expect(summary.backfill).toMatchObject({ status: 'complete', done: COUNT, total: COUNT });
    expect(summary.completeness.find((f) => f.stream === 'conversations')).toMatchObject({
      expected: COUNT,
      live: COUNT,
      unexplained: 0,
    });
  });

  it('a page budget spreads the backfill over runs; no deletion is looked for, nothing written twice, until it is complete', async () => {
    const config = recentFirst({ backfill_pages_per_run: 5 });
    // A second passes at every read of the clock: the backfill has a pace, hence an estimate.
    let t = NOW;
    const one = await syncOnce(api, store, { config, clock: { now: () => (t += 1000) } });
    expect(one.summary.backfill).toMatchObject({ status: 'running', done: 100, total: COUNT });
    expect(one.summary.backfill?.eta_ms).toBeDefined();
    expect(JSON.parse(store.state.get(SCOPES.backfill)?.get('conversations') as string).next_page).toBe(6);
    // While the backfill runs, what the state lacks is the backfill's, not missing.
    expect(one.summary.completeness.find((f) => f.stream === 'conversations')).toEqual({
      stream: 'conversations',
      expected: COUNT,
      live: 180,
      explained: [{ reason: 'backfill_pending', count: 70 }],
      unexplained: 0,
    });
    expect(one.summary.warnings.filter((w) => w.code === 'INCOMPLETE')).toEqual([]);

    const written = ids[COUNT - 1] as string; // in the recent window: written by run one
    const unreached = ids[150] as string; // page 8 oldest first: not reached by run one
    const replied = ids[COUNT - 2] as string;
    world.forceDelete(written);
    world.forceDelete(unreached);
    world.reply(replied);
    const sortsBefore = api.pageSorts.length;
    const two = await syncOnce(api, store, { config });
    // The recent window again (refreshed: the reply is written), then pages 5..10: one page of overlap, five new.
    expect(api.pageSorts.slice(sortsBefore).filter((s) => s === 'oldest')).toHaveLength(6);
    expect(idsOf(store, two.output.runId, 'conversations').live).toContain(replied);
    const three = await syncOnce(api, store, { config });
    expect(three.summary.backfill?.status).toBe('complete');
    for (const run of [one, two, three]) {
      expect(conversationGets(api, run.requestsBefore)).toEqual([]);
      expect(idsOf(store, run.output.runId, 'conversations').deleted).toEqual([]);
    }
    const rows = committedConversations();
    expect(rows.filter((id) => id !== replied)).toHaveLength(new Set(rows.filter((id) => id !== replied)).size);
    expect(rows).not.toContain(unreached);

    // The backfill is done: the next run is a full scan and confirms what vanished.
    const four = await syncOnce(api, store, { config });
    expect(four.summary.backfill).toBeUndefined();
    expect(conversationGets(api, four.requestsBefore)).toEqual([`GET /conversation/${written}`]);
    expect(idsOf(store, four.output.runId, 'conversations').deleted).toEqual([written]);
    expect([...(store.state.get(SCOPES.conversations)?.keys() ?? [])].sort()).toEqual(
      [...api.conversations.keys()].sort(),
    );
  });

  it('killed during the backfill, each next run resumes at the last committed page, writing nothing twice', async () => {
    const config = recentFirst();
    const scan = ['conversations', 'messages', 'contacts'] as const;
    const record = () => store.state.get(SCOPES.backfill)?.get('conversations') as string | undefined;
    // The first kill falls in the recent window, the later ones in the backfill.
    for (const killAfter of [6, 25, 8, 2]) {
      const before = record();
      const sortsBefore = api.pageSorts.length;
      const requestsBefore = api.requests.length;
      await expect(
        syncOnce(api, store, {
          config,
          streams: [...scan],
          checkpointEvery: { rows: 30, ms: 60_000 },
          prepare: (output) => {
            output.killAfterCheckpoints = killAfter;
          },
        }),
      ).rejects.toThrow('killed');
      expect(record(), `after a kill after ${killAfter} checkpoints`).toBeDefined();
      if (before === undefined) continue;
      // A resumed backfill starts one page before the recorded one.
      const lists = api.requests.slice(requestsBefore).filter((r) => r.startsWith('POST /search'));
      const firstOldest = lists[api.pageSorts.slice(sortsBefore).indexOf('oldest')];
      expect(firstOldest).toBe(`POST /search page=${Math.max(1, JSON.parse(before).next_page - 1)}`);
    }
    const last = await syncOnce(api, store, { config, streams: [...scan] });
    expect(last.summary.backfill?.status).toBe('complete');
    const rows = committedConversations();
    expect(rows.sort()).toEqual([...ids].sort());
    expect(new Set(rows).size).toBe(rows.length);
    const messages = store.committed.filter((r) => r.table === 'messages').map((r) => String(r.record.id));
    expect(new Set(messages).size).toBe(messages.length);
    expect(store.committed.filter((r) => r.deleted)).toEqual([]);
  });

  it('runs only on an empty state: a state holding conversations goes on with full scans', async () => {
    await syncOnce(api, store);
    const sortsBefore = api.pageSorts.length;
    await syncOnce(api, store, { config: recentFirst() });
    expect(new Set(api.pageSorts.slice(sortsBefore))).toEqual(new Set(['oldest']));
  });

  it('a pending backfill is dropped by the first complete full scan once first_sync is full again', async () => {
    await syncOnce(api, store, { config: recentFirst({ backfill_pages_per_run: 1 }) });
    expect(store.state.get(SCOPES.backfill)?.size).toBe(1);
    await syncOnce(api, store);
    expect(store.state.get(SCOPES.backfill)?.size ?? 0).toBe(0);
    expect(store.state.get(SCOPES.conversations)?.size).toBe(COUNT);
  });

  it('a first full sync killed mid-list resumes one page before its last committed page, and the next run is a full scan', async () => {
    const scan = ['conversations', 'messages', 'contacts'] as const;
    const record = () => store.state.get(SCOPES.backfill)?.get('conversations') as string | undefined;
    const lists = (from: number) => api.requests.slice(from).filter((r) => r.startsWith('POST /search'));
    const uninterrupted = Math.ceil(ids.length / api.pageSize);
    let listed = 0;
    let kills = 0;
    for (const killAfter of [10, 10, 8]) {
      const before = record();
      const requestsBefore = api.requests.length;
      await expect(
        syncOnce(api, store, {
          streams: [...scan],
          checkpointEvery: { rows: 30, ms: 60_000 },
          prepare: (output) => {
            output.killAfterCheckpoints = killAfter;
          },
        }),
      ).rejects.toThrow('killed');
      kills += 1;
      const pages = lists(requestsBefore);
      listed += pages.length;
      expect(JSON.parse(record() as string)).toMatchObject({ recent: false });
      // Oldest first only (no recent window), from one page before the recorded one.
      expect(new Set(api.pageSorts.slice(-pages.length))).toEqual(new Set(['oldest']));
      if (before !== undefined)
        expect(pages[0]).toBe(`POST /search page=${Math.max(1, JSON.parse(before).next_page - 1)}`);
    }
    const requestsBefore = api.requests.length;
    const last = await syncOnce(api, store, { streams: [...scan] });
    listed += lists(requestsBefore).length;
    expect(last.summary.backfill?.status).toBe('complete');
    expect(record()).toBeUndefined();
    const rows = committedConversations();
    expect(rows.sort()).toEqual([...ids].sort());
    expect(store.committed.filter((r) => r.deleted)).toEqual([]);
    // Pages read again: one per resumed run, plus those a killed run read beyond its last commit.
    expect(listed).toBeLessThanOrEqual(uninterrupted + kills * 3);
    // Done: the next run is a full scan, deletion check included.
    world.forceDelete(ids[5] as string);
    const sortsBefore = api.pageSorts.length;
    const next = await syncOnce(api, store, { streams: [...scan] });
    expect(next.summary.backfill).toBeUndefined();
    expect(new Set(api.pageSorts.slice(sortsBefore))).toEqual(new Set(['oldest']));
    expect(idsOf(store, next.output.runId, 'conversations').deleted).toEqual([ids[5]]);
  });

  it('a first full sync that ends within one checkpoint leaves no position behind', async () => {
    await syncOnce(api, store, { streams: ['conversations'] });
    expect(store.state.get(SCOPES.backfill)?.size ?? 0).toBe(0);
    const sortsBefore = api.pageSorts.length;
    const again = await syncOnce(api, store, { streams: ['conversations'] });
    expect(again.summary.backfill).toBeUndefined();
    expect(api.pageSorts.slice(sortsBefore)).toHaveLength(Math.ceil(ids.length / api.pageSize));
  });
});
