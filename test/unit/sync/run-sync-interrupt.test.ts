import { beforeEach, describe, expect, it } from 'vitest';
import { parseThreadState } from '../../../src/streams/conversations/thread-state.js';
import { SCOPES } from '../../../src/streams/scopes.js';
import { FakeHelpdesk } from './fake-helpdesk.js';
import { FakeStore } from './fake-output.js';
import { HelpdeskWorld } from './helpdesk-world.js';
import { syncOnce } from './sync-harness.js';

describe('interruptions and checkpoints', () => {
  let api: FakeHelpdesk;
  let world: HelpdeskWorld;
  let store: FakeStore;
  let changed: Map<string, string>;

  beforeEach(async () => {
    api = new FakeHelpdesk();
    world = new HelpdeskWorld(api);
    world.seed({ conversations: 250 });
    store = new FakeStore();
    await syncOnce(api, store);
    // 25 conversations get a reply: conversation id → the new message id.
    changed = new Map(
      world
        .conversationIds()
        .filter((_, i) => i % 10 === 0)
        .map((id) => [id, world.reply(id)]),
    );
  });

  const advanced = () =>
    [...changed.keys()].filter((id) => {
      const thread = parseThreadState(store.state.get(SCOPES.thread)?.get(id));
      return thread !== undefined && Object.hasOwn(thread.m, changed.get(id) as string);
    });
  const committedReplies = () =>
    store.committed
      .filter((r) => r.table === 'messages' && [...changed.values()].includes(String(r.record.id)))
      .map((r) => String(r.record.conversation_id));
  const threadRequests = (from: number) =>
    api.requests
      .slice(from)
      .filter((r) => r.endsWith('/messages'))
      .map((r) => r.split('/')[2] as string);

  it('an abort mid-messages commits only whole conversations, and the rerun fetches only the others', async () => {
    const controller = new AbortController();
    let fetched = 0;
    api.threadGate = () => {
      fetched += 1;
      if (fetched === 9) controller.abort(new Error('SIGINT'));
      return undefined;
    };
    const { summary, requestsBefore } = await syncOnce(api, store, { signal: controller.signal });
    expect(summary.status).toBe('interrupted');
    const done = advanced();
    expect(done.length).toBeGreaterThan(0);
    expect(done.length).toBeLessThan(changed.size);
    // Rows and "fetched at" state went together: a reply is committed exactly when its thread state advanced.
    expect(committedReplies().sort()).toEqual(done.sort());
    // Dimension streams ran before the scan; reports, after it, never started.
    expect(api.requests.slice(requestsBefore).some((r) => r.startsWith('GET /reports/'))).toBe(false);
    expect(api.requests.slice(requestsBefore).some((r) => r.startsWith('GET /holidays'))).toBe(true);

    api.threadGate = undefined;
    const rerun = await syncOnce(api, store);
    expect(rerun.summary.status).toBe('succeeded');
    expect(threadRequests(rerun.requestsBefore).sort()).toEqual(
      [...changed.keys()].filter((id) => !done.includes(id)).sort(),
    );
    expect(committedReplies().sort()).toEqual([...changed.keys()].sort());
  });

  it('after a SIGKILL between checkpoints the next run resumes without refetching committed conversations', async () => {
    await expect(
      syncOnce(api, store, {
        checkpointEvery: { rows: 6 },
        prepare: (output) => {
          output.killAfterCheckpoints = 7;
        },
      }),
    ).rejects.toThrow('killed');
    const done = advanced();
    expect(done.length).toBeGreaterThan(0);
    expect(done.length).toBeLessThan(changed.size);
    expect(committedReplies().sort()).toEqual(done.sort());

    const rerun = await syncOnce(api, store);
    expect(threadRequests(rerun.requestsBefore).sort()).toEqual(
      [...changed.keys()].filter((id) => !done.includes(id)).sort(),
    );
    expect(committedReplies().sort()).toEqual([...changed.keys()].sort());
  });

  it('checkpoints every N rows, never inside one conversation', async () => {
    const checkpointOf = new Map<string, Set<number>>();
    const { output } = await syncOnce(api, store, {
      checkpointEvery: { rows: 2 },
      prepare: (out) => {
        out.onWrite = (row) => {
          const conversation = String(row.table === 'conversations' ? row.record.id : row.record.conversation_id);
          if (!['conversations', 'messages', 'thread_events', 'attachments'].includes(row.table)) return;
          const set = checkpointOf.get(conversation) ?? new Set();
          set.add(out.checkpoints);
          checkpointOf.set(conversation, set);
        };
      },
    });
    expect(output.checkpoints).toBeGreaterThan(changed.size / 2);
    expect(checkpointOf.size).toBe(changed.size);
    for (const [conversation, checkpoints] of checkpointOf)
      expect([conversation, checkpoints.size]).toEqual([conversation, 1]);
  });

  it('checkpoints on time too (fake clock)', async () => {
    let t = Date.parse('2026-03-10T12:00:00Z');
    const clock = {
      now: () => {
        t += 4_000;
        return t;
      },
    };
    const timed = await syncOnce(api, store, { clock, checkpointEvery: { rows: 1_000_000, ms: 15_000 } });
    changed = new Map(
      world
        .conversationIds()
        .filter((_, i) => i % 10 === 0)
        .map((id) => [id, world.reply(id)]),
    );
    const untimed = await syncOnce(api, store, { checkpointEvery: { rows: 1_000_000, ms: 15_000 } });
    expect(timed.output.checkpoints).toBeGreaterThan(untimed.output.checkpoints);
  });

  it('an error that ends the run (a 401) ends it after committing what completed before it', async () => {
    api.report = () => {
      throw Object.assign(new Error('unauthenticated'), { status: 401, code: 'API_UNAUTHORIZED' });
    };
    await expect(syncOnce(api, store)).rejects.toThrow('unauthenticated');
    expect(advanced().sort()).toEqual([...changed.keys()].sort());
    expect(committedReplies()).toHaveLength(changed.size);
  });
});
