import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { beyondInt64Index } from '../../../src/sandbox/store/big-integers.js';
import { conversationIds, countedSync, expectOutputEqualsApi } from './quirk-harness.js';
import {
  baseline,
  expectEachKeyOnce,
  expectExplained,
  mutate,
  succeededSync,
  syncChangeSync,
  tombstones,
} from './quirk-runs.js';
import { api, merged, readTables, type SyncEnv, startSyncEnv } from './support.js';

/**
 * The connector against a sandbox that serves one quirk (docs/sandbox.md,
 * "Quirks"; docs/streams.md, "Deployments that differ"): sync, a quiet sync,
 * changes through the API, sync again. The union of the output equals the API's
 * own state, and the second sync costs at most the quiet sync's requests plus
 * one thread request per changed conversation plus the retries it reported.
 */

const CONVERSATIONS = 40;
let env: SyncEnv | undefined;
afterEach(async () => {
  if (!env) return;
  await env.sandbox.close();
  rmSync(env.dir, { recursive: true, force: true });
  env = undefined;
});

async function start(quirks: string, conversations = CONVERSATIONS): Promise<SyncEnv> {
  env = await startSyncEnv({ seed: 41, conversations, quirks });
  return env;
}

describe('the connector under each sandbox quirk', () => {
  it('trash-hidden: a trashed conversation is tombstoned on its 404, and a restore brings it back whole', async () => {
    const e = await start('trash-hidden');
    const { quiet } = await baseline(e);
    expect(quiet.threads).toBe(0);
    const ids = conversationIds(e);
    const { trashed } = await mutate(e, ids);
    const second = await countedSync(e);
    expectExplained(second);
    // Two changed threads, one confirmation of the vanished conversation.
    expect(second.requests).toBeLessThanOrEqual(quiet.requests + 3 + second.result.summary.requests.retries);
    expect(tombstones(e, second.result.summary.run_id)).toBe(1);
    expectOutputEqualsApi(e, { trashShown: false });
    expect(merged(readTables(e.outDir).conversations).has(trashed)).toBe(false);

    await api(e.sandbox, 'PATCH', `/conversation/${trashed}/restore`);
    const third = await countedSync(e);
    expect(third.threads).toBe(1);
    expectOutputEqualsApi(e, { trashShown: false });
    expect(merged(readTables(e.outDir).thread_events).size).toBeGreaterThan(0);
  });

  it('without trash-hidden: a trashed conversation stays a row with deleted_at, never a tombstone', async () => {
    const e = await start('');
    const { quiet } = await baseline(e);
    const { trashed } = await mutate(e, conversationIds(e));
    const second = await countedSync(e);
    expect(second.requests).toBeLessThanOrEqual(quiet.requests + 3);
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expectOutputEqualsApi(e, { trashShown: true });
    expect(merged(readTables(e.outDir).conversations).get(trashed)?.deleted_at).not.toBeNull();
  });

  for (const quirk of ['created-at-ties', 'newest-first', 'loose-types']) {
    it(`${quirk}: nothing lost, no false tombstone, one thread request per changed conversation`, async () => {
      const e = await start(quirk);
      const { quiet } = await baseline(e);
      expect(quiet.threads).toBe(0);
      await mutate(e, conversationIds(e));
      const second = await countedSync(e);
      expect(second.result.summary.status).toBe('succeeded');
      expect(second.threads).toBe(3);
      expect(second.requests).toBeLessThanOrEqual(quiet.requests + 3);
      expect(tombstones(e, second.result.summary.run_id)).toBe(0);
      expectExplained(second);
      expectOutputEqualsApi(e, { trashShown: true });
    });
  }

  it('big-integers: nothing lost or refetched, the conversation whose ticket is beyond 64 bits rejected each time it changes', async () => {
    const e = await start('big-integers');
    const { store } = e.sandbox;
    const beyond = store.conversations.get(beyondInt64Index(store)!).id;
    const { first, quiet } = await baseline(e);
    expect(first.result.summary.tables.conversations?.rejected).toBe(1);
    // Fingerprints of items holding bigints are stable: the quiet run writes and fetches nothing.
    expect([quiet.threads, quiet.result.summary.tables.conversations?.rows ?? 0]).toEqual([0, 0]);
    const { noted } = await mutate(e, conversationIds(e));
    expect(noted).toBe(beyond);
    const second = await countedSync(e);
    expect(second.result.summary.status).toBe('succeeded');
    expect(second.result.summary.tables.conversations?.rejected).toBe(1);
    expect(second.threads).toBe(3);
    expect(second.requests).toBeLessThanOrEqual(quiet.requests + 3);
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expectExplained(second);
    expectOutputEqualsApi(e, { trashShown: true, unlisted: new Set([beyond]) });
    expect(merged(readTables(e.outDir).conversations).has(beyond)).toBe(false);
  });

  it('loose-types: numbers sent as strings and booleans as 0/1 land typed, counted, nothing in _extra', async () => {
    const e = await start('loose-types');
    const { summary } = await e.sync();
    const { store } = e.sandbox;
    const rows = [...merged(readTables(e.outDir).conversations).values()];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const truth = store.conversations.get(store.conversations.indexOf(row.id as string)!);
      expect({ ticket_id: row.ticket_id, is_spam: typeof row.is_spam, extra: row._extra }, row.id as string).toEqual({
        ticket_id: truth.ticketId,
        is_spam: 'boolean',
        extra: null,
      });
    }
    // ticket_id, messages_count and is_spam at least, on every conversation row.
    expect(summary.coerced_values).toBeGreaterThanOrEqual(3 * rows.length);
  });

  it('cut-body: a thread answered with a 200 cut short is asked again; each row written once; the output equals the API', async () => {
    const e = await start('cut-body');
    const { first, quiet } = await baseline(e);
    const r1 = first.result.summary;
    // Every thread's first answer was cut short, and was asked again once.
    expect(r1.messages_fetched).toBeGreaterThan(0);
    expect(r1.requests.retries).toBe(r1.messages_fetched);
    expect(first.threads).toBe(2 * r1.messages_fetched);
    expectEachKeyOnce(e, r1.run_id);
    expect(quiet.threads).toBe(0);
    await mutate(e, conversationIds(e));
    const second = await succeededSync(e);
    // Three changed threads, each cut once more (a new version of the thread): six thread requests.
    expect(second.threads).toBe(6);
    expect(second.requests).toBeLessThanOrEqual(quiet.requests + 6);
    expectEachKeyOnce(e, second.result.summary.run_id);
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expectExplained(second);
    expectOutputEqualsApi(e, { trashShown: true });
  });

  it('overlapping-pages: a conversation listed again on the next page is handled once per run and counted', async () => {
    // Over 100 conversations of the admin's organization: more than one page of 100.
    const e = await start('overlapping-pages', 260);
    const { first, quiet } = await baseline(e);
    expect(first.result.summary.conversations_relisted).toBeGreaterThan(0);
    expect(first.threads).toBe(first.result.summary.messages_fetched);
    expectEachKeyOnce(e, first.result.summary.run_id);
    expect(quiet.threads).toBe(0);
    await mutate(e, conversationIds(e));
    const second = await succeededSync(e);
    expect(second.result.summary.conversations_relisted).toBe(first.result.summary.conversations_relisted);
    expect(second.threads).toBe(3);
    expect(second.requests).toBeLessThanOrEqual(quiet.requests + 3);
    expectEachKeyOnce(e, second.result.summary.run_id);
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expect(second.result.summary.warnings.filter((w) => w.code === 'INCOMPLETE')).toEqual([]);
    expectOutputEqualsApi(e, { trashShown: true });
  });

  it('volatile-views: views and re-signed avatar URLs cost no thread request and rewrite no contact', async () => {
    const e = await start('volatile-views');
    const { quiet } = await baseline(e);
    expect(quiet.threads).toBe(0);
    expect(quiet.result.summary.tables.contacts.rows).toBe(0);
    const ids = conversationIds(e);
    for (const id of ids.slice(0, 10)) await api(e.sandbox, 'GET', `/conversation/${id}`);
    const viewed = await countedSync(e);
    expect(viewed.threads).toBe(0);
    expect(viewed.result.summary.tables.contacts.rows).toBe(0);
    // The views are data: the conversation rows carry the new viewed_at.
    expect(viewed.result.summary.tables.conversations.rows).toBe(10);
    await mutate(e, ids);
    const second = await countedSync(e);
    expect(second.threads).toBe(3);
    expect(second.requests).toBeLessThanOrEqual(quiet.requests + 3);
    // Refetched threads whose actors' avatars were re-signed: only the three new
    // events (note, status change, trash) are written; no event is re-keyed or tombstoned.
    expect(second.result.summary.tables.thread_events).toEqual({ rows: 3, tombstones: 0, rejected: 0 });
    expectOutputEqualsApi(e, { trashShown: true });
  });

  it('forbidden-threads: a 403 thread is skipped with a warning and a count, retried next run, never tombstoned', async () => {
    const e = await start('forbidden-threads');
    const hidden = e.sandbox.store.forbiddenInboxId()!;
    const forbidden = conversationIds(e, (inbox) => inbox === hidden).length;
    expect(forbidden).toBeGreaterThan(0);
    const { first, quiet } = await baseline(e);
    expect(first.result.summary.forbidden_skipped).toBe(forbidden);
    expect(first.result.summary.warnings.filter((w) => w.code === 'THREAD_FORBIDDEN')).toHaveLength(forbidden);
    // Asked again on every run, and only those.
    expect(quiet.threads).toBe(forbidden);
    expect(quiet.result.summary.forbidden_skipped).toBe(forbidden);
    // The threads not held are explained by their 403, run after run.
    for (const run of [first, quiet]) {
      expectExplained(run);
      expect(run.result.summary.completeness.find((f) => f.stream === 'messages')?.explained).toEqual([
        { reason: 'threads_forbidden', count: forbidden },
      ]);
    }
    await mutate(
      e,
      conversationIds(e, (inbox) => inbox !== hidden),
    );
    const second = await countedSync(e);
    expect(second.result.summary.status).toBe('succeeded');
    expect(second.requests).toBeLessThanOrEqual(quiet.requests + 3);
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expectOutputEqualsApi(e, { trashShown: true, unreadableInbox: hidden });
  });

  it('search-cap: a listing short of meta.total is reported and tombstones nothing', async () => {
    const e = await start('search-cap:15');
    const all = conversationIds(e);
    expect(all.length).toBeGreaterThan(15);
    const first = await countedSync(e);
    const short = first.result.summary.warnings.filter((w) => w.code === 'LISTING_SHORT');
    expect(short).toHaveLength(1);
    expect(short[0]!.message).toContain(`15 of the ${all.length}`);
    const listed = new Set(merged(readTables(e.outDir).conversations).keys());
    expect(listed.size).toBe(15);
    expectExplained(first);
    expect(first.result.summary.completeness.find((f) => f.stream === 'conversations')).toMatchObject({
      expected: all.length,
      live: 15,
      explained: [{ reason: 'past_search_cap', count: all.length - 15 }],
    });
    // Trashing a listed conversation moves nothing out of the listing (search shows
    // trashed ones); the change is picked up, and nothing unlisted is tombstoned.
    await api(e.sandbox, 'POST', `/conversation/${[...listed][0]}/note`, { message: 'seen' });
    const second = await countedSync(e);
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expect(second.threads).toBe(1);
    expectExplained(second);
    const unlisted = new Set(all.filter((id) => !listed.has(id)));
    expectOutputEqualsApi(e, { trashShown: true, unlisted });
  });

  it('invitations-without-id: an invitation without an id goes to rejected rows with its reason', async () => {
    const e = await start('invitations-without-id');
    const { summary } = await e.sync();
    const invited = e.sandbox.store
      .users(e.sandbox.store.world.organizations[0]!.id)
      .filter((u) => u.status === 'invited').length;
    expect(invited).toBeGreaterThan(0);
    expect(summary.tables.users.rejected).toBe(invited);
    // The invitations are counted by the list and explained as rejected rows.
    expect(summary.completeness.find((f) => f.stream === 'users')?.explained).toEqual([
      { reason: 'rejected', count: invited },
    ]);
    expect(summary.completeness.find((f) => f.stream === 'users')?.unexplained).toBe(0);
    const users = (await api(e.sandbox, 'GET', '/settings/users')) as unknown as Array<{ id?: string }>;
    expect(new Set(merged(readTables(e.outDir).users).keys())).toEqual(
      new Set(users.filter((u) => u.id !== undefined).map((u) => u.id)),
    );
  });

  it('bare-429: a 429 without Retry-After or with an HTTP date pauses, then the sync goes on; the output equals the API', async () => {
    const e = await start('bare-429');
    // Its 429s show room left in the window (X-RateLimit-Remaining above 0): another limiter's, so
    // each costs a pause of about a second, not the rest of the (learned, here 60 s) window.
    const { first, quiet, second } = await syncChangeSync(e);
    // 5 % of requests draw a bare 429: over three syncs of ~70 requests some must have come.
    expect(first.limited + quiet.limited + second.limited).toBeGreaterThan(0);
    for (const run of [first, quiet, second]) {
      // Every 429 the sandbox sent was retried (and counted); nothing else was.
      expect(run.result.summary.requests.rateLimited).toBe(run.limited);
    }
    // The changed conversations' threads, and one retry per 429: no more.
    expect(second.requests - second.limited).toBeLessThanOrEqual(quiet.requests - quiet.limited + 3);
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expectOutputEqualsApi(e, { trashShown: true });
  });

  it('no-rate-headers and silent-429: 429s that say nothing cost probes of a second, not windows; the output equals the API', async () => {
    const e = await start('no-rate-headers,silent-429');
    const { first, quiet, second } = await syncChangeSync(e);
    // One request in 40 draws the gateway's 429: over three syncs of ~70 requests some must have come.
    expect(first.limited + quiet.limited + second.limited).toBeGreaterThan(0);
    for (const run of [first, quiet, second]) {
      const r = run.result.summary.requests;
      // Every 429 the sandbox sent was retried and counted, probes included; nothing else was.
      expect(r.rateLimited).toBe(run.limited);
      expect(r.retries).toBe(run.limited);
      // Each 429 paused every request for a second, or two when a probe met another: never a window.
      expect(r.rateLimitPausedMs).toBeLessThanOrEqual(run.limited * 2_000);
    }
    expect(second.requests - second.limited).toBeLessThanOrEqual(quiet.requests - quiet.limited + 3);
    expect(tombstones(e, second.result.summary.run_id)).toBe(0);
    expectOutputEqualsApi(e, { trashShown: true });
  });

  it('proxy-html-errors: HTML 502/503 pages from a proxy are retried; the output equals the API', async () => {
    const e = await start('proxy-html-errors');
    const { quiet } = await baseline(e);
    await mutate(e, conversationIds(e));
    const second = await countedSync(e);
    expect(second.result.summary.status).toBe('succeeded');
    expect(second.requests).toBeLessThanOrEqual(quiet.requests + 3 + second.result.summary.requests.retries);
    const stats = e.sandbox.stats().by_status;
    expect((stats['502'] ?? 0) + (stats['503'] ?? 0)).toBeGreaterThan(0);
    expectOutputEqualsApi(e, { trashShown: true });
  });
});
