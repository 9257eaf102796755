import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStateDb } from '../../../src/state/database.js';
import { createKvStore } from '../../../src/state/kv-store.js';
import { parseThreadState } from '../../../src/streams/conversations/thread-state.js';
import { api, readTables, type SyncEnv, startSyncEnv } from '../sync/support.js';

/**
 * A state written before the per-conversation scopes were packed: the state
 * file of a first sync of the sandbox's seed 34 (40 conversations; streams
 * conversations, contacts, messages), made by that earlier version and kept
 * as it wrote it. Opened by this version it is migrated; the next syncs must
 * find exactly what changed in the sandbox since, nothing more (no row written
 * again, no false tombstone) and nothing less.
 */
const FIXTURE = new URL('../../fixtures/state/state-v2-seed34.sqlite.gz', import.meta.url);
const SCAN = ['conversations', 'contacts', 'messages'];

let env: SyncEnv;
beforeAll(async () => {
  env = await startSyncEnv({ seed: 34, conversations: 40 });
  mkdirSync(join(env.dir, 'state'));
  writeFileSync(env.statePath, gunzipSync(readFileSync(FIXTURE)));
});
afterAll(async () => {
  await env?.close();
});

type Kv = { scope: string; key: string; value: string };

describe('a state written by the earlier version, with JSON thread hashes in kv_state', () => {
  it('is migrated losing nothing, and the next syncs find every change and tombstone nothing else', async () => {
    const raw = new Database(env.statePath, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(2);
    const old = raw.prepare('SELECT scope, key, value FROM kv_state ORDER BY scope, key').all() as Kv[];
    raw.close();
    expect(old.filter((r) => r.scope === 'fp:thread')).toHaveLength(34);

    // 1. Every value reads back as it was written: fingerprints equal, thread maps equal.
    const state = openStateDb(env.statePath);
    const store = createKvStore(state);
    for (const { scope, key, value } of old) {
      const now = store.get(scope, key);
      if (scope === 'fp:thread') expect(parseThreadState(now), key).toEqual(parseThreadState(value));
      else expect(now, `${scope} ${key}`).toBe(value);
    }
    state.close();

    // 2. Nothing changed in the sandbox: a quiet run, no thread fetched, nothing written.
    const quiet = await env.sync({ streams: SCAN });
    expect(quiet.summary.messages_fetched).toBe(0);
    for (const table of ['conversations', 'contacts', 'messages', 'thread_events', 'attachments'] as const) {
      expect(quiet.summary.tables[table].rows, table).toBe(0);
    }

    // 3. A note in one conversation, another conversation deleted for good.
    const threads = old.filter((r) => r.scope === 'fp:thread');
    const [noted, gone] = [threads[3]!.key, threads[7]!.key];
    await api(env.sandbox, 'POST', `/conversation/${noted}/note`, {
      message: 'after the migration',
      mentioned_ids: [],
    });
    await api(env.sandbox, 'DELETE', `/conversation/${gone}`);
    await api(env.sandbox, 'DELETE', `/conversation/${gone}/force-delete`);
    const changed = await env.sync({ streams: SCAN });
    const rows = readTables(env.outDir, changed.summary.run_id);
    const live = (table: string) => (rows[table] ?? []).filter((r) => r._deleted !== true);
    const tombstones = (table: string) =>
      (rows[table] ?? [])
        .filter((r) => r._deleted === true)
        .map((r) => String(r.id))
        .sort();
    expect(live('conversations').map((r) => r.id)).toEqual([noted]);
    expect(live('messages').map((r) => r.conversation_id)).toEqual([noted]);
    expect(live('messages').map((r) => r.text_body)).toEqual(['after the migration']);
    expect(live('thread_events')).toHaveLength(1);
    expect(live('attachments')).toEqual([]);
    // Exactly the rows the old state remembered for the deleted conversation, from its JSON.
    const held = JSON.parse(threads[7]!.value) as Record<'e' | 'm' | 'a', Record<string, string>>;
    expect(tombstones('conversations')).toEqual([gone]);
    expect(tombstones('thread_events')).toEqual(Object.keys(held.e).sort());
    expect(tombstones('messages')).toEqual(Object.keys(held.m).sort());
    expect(tombstones('attachments')).toEqual(Object.keys(held.a).sort());
    expect(Object.keys(held.e).length).toBeGreaterThan(0);

    // 4. And the state it left behind is as quiet as the first.
    const after = await env.sync({ streams: SCAN });
    expect(after.summary.messages_fetched).toBe(0);
    expect(after.summary.tables.conversations.rows + after.summary.tables.messages.rows).toBe(0);
  });
});
