import { afterEach, describe, expect, it } from 'vitest';
import { SEED_END_MS } from '../../../src/sandbox/seed/seed-window.js';
import type { SyncSummary } from '../../../src/sync/run-sync.js';
import { expectOutputEqualsApi, tombstonedIds } from './quirk-harness.js';
import { allConversations, readTables, type SyncEnv, startSyncEnv } from './support.js';

/**
 * A recent-first first sync (conversations.first_sync: recent_first) against the
 * sandbox as it is and as rough deployments serve it: newest-first lists that
 * ignore sort=oldest, created_at ties, a search cap. One backfill page per run,
 * so the backfill spans runs; then one full scan. Every run's figure explains
 * its differences, no conversation is written twice, nothing is tombstoned, and
 * the union of the output equals what the API lists.
 */
const DAY = 86_400_000;
let env: SyncEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

function expectExplained(summary: SyncSummary): void {
  expect(summary.warnings.filter((w) => w.code === 'INCOMPLETE')).toEqual([]);
  expect(summary.completeness.filter((f) => f.unexplained !== 0)).toEqual([]);
}

describe('recent-first first sync against the quirks', () => {
  for (const quirks of ['', 'newest-first', 'created-at-ties', 'search-cap:60']) {
    it(`${quirks || 'no quirk'}: the backfill spans runs, every difference explained, nothing twice, no tombstone`, async () => {
      env = await startSyncEnv({ seed: 47, conversations: 300, quirks });
      const e = env;
      const config = {
        // About the last 40 days of the seeded year: the newest page or so.
        conversations: {
          first_sync: 'recent_first',
          recent_days: Math.ceil((Date.now() - SEED_END_MS) / DAY) + 40,
          backfill_pages_per_run: 1,
        },
      };
      const runs: SyncSummary[] = [];
      do {
        const { summary } = await e.sync(config);
        expect(summary.status).toBe('succeeded');
        expectExplained(summary);
        runs.push(summary);
      } while (runs.at(-1)?.backfill?.status === 'running' && runs.length < 8);
      expect(runs.at(-1)?.backfill?.status).toBe('complete');
      expect(runs.length).toBeGreaterThan(1);
      const backfilled = readTables(e.outDir).conversations ?? [];
      const ids = backfilled.map((r) => r.id);
      expect(new Set(ids).size).toBe(ids.length);

      const full = (await e.sync(config)).summary;
      expect(full.backfill).toBeUndefined();
      expectExplained(full);
      for (const run of [...runs, full]) expect(tombstonedIds(e, run.run_id)).toEqual([]);
      // What the listing serves (past a cap nothing is served, so nothing can be read).
      const listed = new Set((await allConversations(e.sandbox, 'oldest')).map((c) => c.id as string));
      const newest = new Set((await allConversations(e.sandbox, 'newest')).map((c) => c.id as string));
      const unlisted = new Set(conversationsOf(e).filter((id) => !listed.has(id) && !newest.has(id)));
      expect(unlisted.size > 0).toBe(quirks.startsWith('search-cap'));
      expectOutputEqualsApi(e, { trashShown: true, unlisted });
    });
  }
});

/** Every conversation of the admin's organization the sandbox holds. */
function conversationsOf(e: SyncEnv): string[] {
  const { store } = e.sandbox;
  const org = store.world.organizations[0]!.id;
  const ids: string[] = [];
  for (let i = 0; i < store.table.count; i++) {
    if (store.conversations.exists(i) && store.conversations.get(i).organizationId === org)
      ids.push(store.conversations.get(i).id);
  }
  return ids;
}
