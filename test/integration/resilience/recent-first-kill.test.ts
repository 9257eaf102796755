import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SEED_END_MS } from '../../../src/sandbox/seed/seed-window.js';
import { createKvStore } from '../../../src/state/kv-store.js';
import { SCOPES } from '../../../src/streams/scopes.js';
import type { CliResult } from '../sync/cli-run.js';
import { conversationIds, expectOutputEqualsApi } from '../sync/quirk-harness.js';
import { api, type Row, readTables, type SyncEnv, startSyncEnv } from '../sync/support.js';
import {
  expectNoFileListedTwice,
  expectStateBehindOutput,
  runBuiltCli,
  runBuiltCliKilledWhen,
  walkFiles,
} from './support.js';

/** Several real CLI processes in a row: minutes on a loaded machine, not the default minute. */
const CLI_TEST_TIMEOUT_MS = 240_000;
const DAY = 86_400_000;
const THREADS = 'GET /v1/conversation/:conversation_id/messages';

/**
 * A recent-first first sync (conversations.first_sync: recent_first) of a real
 * CLI process, SIGKILLed at four points: in the recent window, then at three
 * points of the backfill, each kill hitting the run that resumed from the one
 * before. Between two kills a conversation already written and one the
 * backfill has not reached are destroyed. Then runs go on to the end: the union
 * of the output equals the API, no key is written twice, and no tombstone
 * appears until a full scan after the backfill confirms the written one gone.
 */
let env: SyncEnv | undefined;
afterAll(async () => {
  await env?.close();
});

/** The backfill's next page: its one row of the state, not the whole state (a kill point polls it every 5 ms). */
function backfillPage(statePath: string): number | undefined {
  if (!existsSync(statePath)) return undefined;
  const db = new Database(statePath, { readonly: true, fileMustExist: true });
  try {
    const value = db
      .prepare('SELECT value FROM kv_state WHERE scope = ? ORDER BY key LIMIT 1')
      .pluck()
      .get(SCOPES.backfill) as string | undefined;
    return value === undefined ? undefined : (JSON.parse(value) as { next_page: number }).next_page;
  } finally {
    db.close();
  }
}

function heldConversations(statePath: string): Set<string> {
  const db = new Database(statePath, { readonly: true, fileMustExist: true });
  try {
    return new Set(createKvStore({ db }).keys(SCOPES.conversations));
  } finally {
    db.close();
  }
}

function threadRequests(e: SyncEnv): number {
  return Object.values(e.sandbox.stats().by_route[THREADS] ?? {}).reduce((a, b) => a + b, 0);
}

async function killedWhen(e: SyncEnv, config: string, name: string, reached: (threads: number) => boolean) {
  const start = threadRequests(e);
  const result: CliResult = await runBuiltCliKilledWhen(['sync', '--config', config], () =>
    reached(threadRequests(e) - start),
  );
  expect(result.signal, `killed at "${name}" (the run ended first: exit ${result.code} ${result.stderr})`).toBe(
    'SIGKILL',
  );
  expectStateBehindOutput(e.statePath, e.outDir);
}

/** Every key of the table appears in at most one row across all files, but for keys that really changed. */
function expectNoKeyTwice(tables: Record<string, Row[]>, table: string, changed: string[] = []): void {
  const ids = (tables[table] ?? []).map((r) => String(r.id)).filter((id) => !changed.includes(id));
  expect(ids.length, table).toBeGreaterThan(0);
  expect(new Set(ids).size, `${table}: a key written twice`).toBe(ids.length);
}

describe('recent-first first sync killed during the backfill', () => {
  it(
    'resumes at each kill; the union equals the API, no key twice, no tombstone before the backfill is complete',
    async () => {
      env = await startSyncEnv({ seed: 46, conversations: 900 });
      const e = env;
      // The seeded data ends at SEED_END_MS: a window reaching 40 days before it holds about a tenth.
      const recentDays = Math.ceil((Date.now() - SEED_END_MS) / DAY) + 40;
      const config = e.configFile('recent-first.json', {
        conversations: { first_sync: 'recent_first', recent_days: recentDays },
        source: { rate_limit: { requests_per_minute: 6000, concurrency: 2 } },
        checkpoint: { every_rows: 60, every_seconds: 1 },
        log: { level: 'error' },
      });
      const state = e.statePath;
      await killedWhen(e, config, 'recent window: 20 threads', (n) => n >= 20);
      // Killed before or after the first commit: a fresh start or the first page, either way recent-first.
      expect([undefined, 1]).toContain(backfillPage(state));
      await killedWhen(e, config, 'backfill: page 3 committed', () => (backfillPage(state) ?? 0) >= 3);

      const held = heldConversations(state);
      const written = [...held][0]!;
      const unreached = conversationIds(e)
        .filter((id) => !held.has(id))
        .at(-30)!;
      // Their contacts' conversations_count moves: those contacts really change.
      const contacts: string[] = [];
      for (const id of [written, unreached]) {
        contacts.push(String((((await api(e.sandbox, 'GET', `/conversation/${id}`)).data as Row).contact as Row).id));
        await api(e.sandbox, 'DELETE', `/conversation/${id}`);
        await api(e.sandbox, 'DELETE', `/conversation/${id}/force-delete`);
      }
      const page = backfillPage(state)!;
      await killedWhen(e, config, 'backfill: two more pages', () => (backfillPage(state) ?? 0) >= page + 2);
      await killedWhen(e, config, 'backfill: 20 threads of this run', (n) => n >= 20);

      // To the end of the backfill: nothing tombstoned yet, no key written twice.
      for (let run = 0; backfillPage(state) !== undefined && run < 5; run++) {
        const done = await runBuiltCli(['sync', '--config', config]);
        expect(done.code, done.stderr).toBe(0);
      }
      expect(backfillPage(state)).toBeUndefined();
      let tables = readTables(e.outDir);
      expect((tables.conversations ?? []).filter((r) => r._deleted === true)).toEqual([]);
      for (const table of ['conversations', 'messages', 'thread_events']) expectNoKeyTwice(tables, table);
      expectNoKeyTwice(tables, 'contacts', contacts);
      expect(new Set((tables.conversations ?? []).map((r) => r.id))).not.toContain(unreached);

      // The first full scan after the backfill confirms the written one gone.
      const full = await runBuiltCli(['sync', '--config', config]);
      expect(full.code, full.stderr).toBe(0);
      tables = readTables(e.outDir);
      expect((tables.conversations ?? []).filter((r) => r._deleted === true).map((r) => r.id)).toEqual([written]);
      const manifests = walkFiles(join(e.outDir, '_manifests')).map((p) => JSON.parse(readFileSync(p, 'utf8')));
      expectNoFileListedTwice(manifests);
      expectOutputEqualsApi(e, { trashShown: true });
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
