import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { expectOutputEqualsApi, tombstonedIds } from './quirk-harness.js';
import { allConversations, api, merged, readTables, routeRequests, type SyncEnv, startSyncEnv } from './support.js';

/**
 * Offset pages shift when the list changes during a scan (docs/streams.md,
 * "Deployments that differ"): a conversation destroyed after its page was read
 * moves every later item up by one, so the first item of the next page is never
 * listed in that run. The run must not take the skipped conversation for
 * deleted, and the next run must read its change. Under `newest-first` the same
 * holds with the order reversed.
 */

const SEARCH = 'POST /v1/search';
let env: SyncEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('pages that shift during a scan', () => {
  for (const quirks of ['', 'newest-first']) {
    it(`${quirks || 'default order'}: a conversation skipped by the shift is not tombstoned, and the next run reads its change`, async () => {
      env = await startSyncEnv({ seed: 43, conversations: 400, quirks });
      const e = env;
      // The listing as the connector asks for it (the sandbox may ignore the sort).
      const before = (await allConversations(e.sandbox, 'oldest')).map((c) => c.id as string);
      expect(before.length).toBeGreaterThan(200);
      // The first listed conversation is trashed before the first run, so the second run
      // lists it unchanged (no thread request) just before it is destroyed.
      const [destroyed, skipped] = [before[0]!, before[100]!];
      await api(e.sandbox, 'DELETE', `/conversation/${destroyed}`);
      expect((await e.sync()).summary.status).toBe('succeeded');
      await api(e.sandbox, 'POST', `/conversation/${skipped}/note`, { message: 'changed before the run' });

      // Destroy the first listed conversation once the first page has been served, while later pages are still to come.
      const pagesBefore = routeRequests(e.sandbox, SEARCH);
      const run = e.sync();
      let destroyedMidScan = false;
      for (let i = 0; i < 20_000 && !destroyedMidScan; i++) {
        if (routeRequests(e.sandbox, SEARCH) > pagesBefore) {
          await api(e.sandbox, 'DELETE', `/conversation/${destroyed}/force-delete`);
          destroyedMidScan = true;
        } else await sleep(1);
      }
      const second = await run;
      expect(destroyedMidScan).toBe(true);
      // The shift happened: later pages were served after the destruction.
      expect(routeRequests(e.sandbox, SEARCH) - pagesBefore).toBe(Math.ceil(before.length / 100));
      expect(second.summary.status).toBe('succeeded');
      // The listing looked complete (meta.total shrank with it); the skipped conversation was
      // a deletion suspect, confirmed alive by its view, kept, and said so.
      expect(second.summary.warnings.map((w) => w.code)).toEqual(['CONVERSATION_NOT_LISTED']);
      // The completeness figure explains the shift: the skipped conversation is kept, unlisted.
      const conversations = second.summary.completeness.find((f) => f.stream === 'conversations');
      expect(conversations).toMatchObject({ live: conversations!.expected + 1, unexplained: 0 });
      expect(conversations!.explained).toEqual([{ reason: 'kept_unlisted', count: -1 }]);
      expect(second.summary.warnings[0]?.message).toContain(skipped);
      const secondRows = readTables(e.outDir, second.summary.run_id).conversations ?? [];
      expect(secondRows.some((r) => r.id === skipped)).toBe(false);
      expect(tombstonedIds(e, second.summary.run_id)).toEqual([]);

      const third = await e.sync();
      expect(third.summary.status).toBe('succeeded');
      expect(tombstonedIds(e, third.summary.run_id)).toEqual([destroyed]);
      expect(merged(readTables(e.outDir).conversations).has(skipped)).toBe(true);
      expect((readTables(e.outDir, third.summary.run_id).conversations ?? []).some((r) => r.id === skipped)).toBe(true);
      expectOutputEqualsApi(e, { trashShown: true });
    });
  }
});
