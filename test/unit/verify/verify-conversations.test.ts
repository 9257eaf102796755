import { beforeEach, describe, expect, it } from 'vitest';
import { memoryScratchSpace } from '../../../src/scratch-space.js';
import { verifyConversations } from '../../../src/verify/verify-conversations.js';
import type { VerifyContext } from '../../../src/verify/verify-types.js';
import { FakeClock } from '../api/fake-clock.js';
import { FakeHelpdesk } from '../sync/fake-helpdesk.js';
import { FakeStore } from '../sync/fake-output.js';
import { HelpdeskWorld } from '../sync/helpdesk-world.js';
import { syncOnce, testConfig } from '../sync/sync-harness.js';

describe('verify: the conversation listing against the state', () => {
  let api: FakeHelpdesk;
  let world: HelpdeskWorld;
  let store: FakeStore;
  /** The fake world's clock stands in January 2026: the last sync "started" before its next tick. */
  let lastSyncStartMs: number;

  beforeEach(async () => {
    api = new FakeHelpdesk();
    world = new HelpdeskWorld(api);
    world.seed({ conversations: 250 });
    store = new FakeStore();
    await syncOnce(api, store);
    lastSyncStartMs = Date.parse(world.ts());
  });

  const ctx = (config = testConfig()): VerifyContext => ({
    api,
    state: store.reader(),
    conversations: { ...config.conversations, endpoint: config.source.conversations_endpoint },
    scratch: memoryScratchSpace(),
    clock: new FakeClock(),
    lastSyncStartMs,
    backfillPending: false,
  });
  const found = async (config = testConfig()) =>
    (await verifyConversations(ctx(config), 0)).tally.findings().map((f) => [f.kind, f.count, f.explained]);

  it('finds nothing after a sync; costs one request per list page', async () => {
    const check = await verifyConversations(ctx(), 0);
    expect(check.tally.findings()).toEqual([]);
    expect(check.requests).toBe(3);
    expect(check.counts).toEqual({ subject: 'conversations', api: 250, state: 250 });
  });

  it('a change since the last sync is explained; one the last sync should have seen is not', async () => {
    const [later, behind] = world.conversationIds() as [string, string];
    world.reply(later);
    // Rewritten with an updated_at from before the last sync: the state's back.
    (api.conversations.get(behind) as Record<string, unknown>).subject = 'quietly rewritten';
    expect(await found()).toEqual([
      ['changed_since_last_sync', 1, true],
      ['changed_behind_state', 1, false],
    ]);
  });

  it('a cap explains the tail; a hole mid-list does not; an unlisted conversation depends on the endpoint', async () => {
    api.listCap = 200;
    expect(await found()).toEqual([
      ['listing_capped', 50, true],
      ['past_search_cap', 50, true],
    ]);
    api.listCap = undefined;
    api.hiddenIds.add(world.conversationIds()[10] as string);
    expect(await found()).toEqual([
      ['listing_short', 1, false],
      ['not_listed', 1, false],
    ]);
    // GET /conversations/mine shows the caller's live conversations only: one leaving it is kept, explained.
    expect(await found(testConfig({ source: { ...testConfig().source, conversations_endpoint: 'mine' } }))).toEqual([
      ['listing_short', 1, false],
      ['left_mine', 1, true],
    ]);
    api.hiddenIds.clear();
    const gone = world.conversationIds()[20] as string;
    world.forceDelete(gone);
    expect(await found()).toEqual([['deleted_since_last_sync', 1, true]]);
  });
});
