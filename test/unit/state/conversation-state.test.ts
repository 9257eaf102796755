import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { packHashMaps, unpackHashMaps } from '../../../src/packed-hash-maps.js';
import { openStateDb } from '../../../src/state/database.js';
import { createKvStore } from '../../../src/state/kv-store.js';
import { MIGRATIONS, runMigrations } from '../../../src/state/migrations.js';
import { packConversationState } from '../../../src/state/pack-conversation-state.js';
import { parseThreadState } from '../../../src/streams/conversations/thread-state.js';

const C1 = '0001ad5b-69a7-403e-9516-1c5670307488';
const C2 = '00484205-3454-4414-9dbd-1c5637015f42';
const FP = '-8a7X27CAgWlaJch';

const rows = (db: Database.Database, sql: string) => db.prepare(sql).all() as Array<Record<string, unknown>>;

describe('the per-conversation state tables', () => {
  it('keep a conversation once, id and fingerprints packed, and drop it with its last value', () => {
    const state = openStateDb(':memory:');
    const store = createKvStore(state);
    const thread = packHashMaps({ e: { [C2]: 'bjUlFRqhtLya' }, m: {}, a: {} });
    store.put('fp:conversations', C1, FP);
    store.put('fp:thread_at', C1, 'ZPrSYi2ilODXYLrO');
    store.put('fp:thread', C1, thread);
    store.put('fp:conversations', 'not-a-uuid', 'not base64url!');
    const first = rows(state.db, 'SELECT * FROM conversation_state ORDER BY n')[0] ?? {};
    expect((first.id as Buffer).length).toBe(16);
    expect((first.fingerprint as Buffer).length).toBe(12);
    expect(rows(state.db, "SELECT * FROM kv_state WHERE scope LIKE 'fp:%'")).toEqual([]);
    expect(store.get('fp:conversations', C1)).toBe(FP);
    expect(store.get('fp:thread_at', C1)).toBe('ZPrSYi2ilODXYLrO');
    expect(store.get('fp:thread', C1)).toEqual(thread);
    expect(store.get('fp:conversations', 'not-a-uuid')).toBe('not base64url!');
    expect(store.get('fp:thread', 'not-a-uuid')).toBeUndefined();
    expect([...store.keys('fp:conversations')]).toEqual(['not-a-uuid', C1]);
    expect([...store.keys('fp:thread')]).toEqual([C1]);
    expect(() => store.put('fp:conversations', C2, Buffer.from('x'))).toThrow(TypeError);

    store.remove('fp:conversations', C1);
    store.remove('fp:thread', C1);
    expect(store.count('fp:conversations')).toBe(1);
    expect(store.count('fp:thread')).toBe(0);
    expect(store.get('fp:thread_at', C1)).toBe('ZPrSYi2ilODXYLrO');
    store.remove('fp:thread_at', C1);
    expect(rows(state.db, 'SELECT count(*) AS n FROM conversation_state')).toEqual([{ n: 1 }]);
    expect(store.clear('fp:conversations')).toBe(1);
    expect(rows(state.db, 'SELECT count(*) AS n FROM conversation_state')).toEqual([{ n: 0 }]);
    state.close();
  });
});

/** Every released version that kept the per-conversation scopes in kv_state (1 up to the packing step). */
const PACKING = MIGRATIONS.find((m) => m.up === packConversationState)?.version ?? 0;
const EARLIER = MIGRATIONS.filter((m) => m.version < PACKING).map((m) => m.version);

describe('the migration of a state written with the per-conversation scopes in kv_state', () => {
  it('is preceded by every earlier version', () => {
    expect(EARLIER).toEqual([1, 2, 3]);
  });

  it.each(EARLIER)(
    'from version %i moves every key and value, packed, losing nothing, and leaves the other scopes and tables where they were',
    (version) => {
      const db = new Database(':memory:');
      runMigrations(
        db,
        ':memory:',
        MIGRATIONS.filter((m) => m.version <= version),
      );
      expect(db.pragma('user_version', { simple: true })).toBe(version);
      const traffic = version >= 3 ? ['run-1', 60_000, 'learned', 100, '[3,5]'] : undefined;
      if (traffic) db.prepare('INSERT INTO run_traffic VALUES (?, ?, ?, ?, ?)').run(...traffic);
      const insert = db.prepare('INSERT INTO kv_state (scope, key, value) VALUES (?, ?, ?)');
      const written = {
        e: { [C2]: 'bjUlFRqhtLya', evt_0f5744585480a6acddb5478e02b54999: 'MFOUoGSB9Hm-' },
        m: { [C2]: 'awyZmdZx9eqA' },
        a: {},
      };
      const before: Array<[string, string, string]> = [
        ['fp:conversations', C1, FP],
        ['fp:conversations', C2, 'OFWat8bWk4fz2vaT'],
        ['fp:conversations', 'legacy-id', 'a fingerprint of another shape'],
        ['fp:thread_at', C1, 'OFWat8bWk4fz2vaT'],
        ['fp:thread', C1, JSON.stringify(written)],
        ['fp:thread', C2, '{"e": not json'],
        ['fp:thread', 'legacy-id', '{"e":{"k":"v"},"m":{},"a":{},"x":{"y":"z"}}'],
        ['fp:contacts', C1, FP],
        ['fp:tags', 't1', 'h'],
        ['scan:backfill', 'conversations', '{"next_page":3,"started_at":"2026-11-20T00:00:00.000Z"}'],
      ];
      for (const row of before) insert.run(...row);
      expect(runMigrations(db, ':memory:')).toBe(MIGRATIONS.at(-1)?.version);
      if (traffic) expect(Object.values(rows(db, 'SELECT * FROM run_traffic')[0] ?? {})).toEqual(traffic);

      const store = createKvStore({ db });
      for (const [scope, key, value] of before) {
        const now = store.get(scope, key);
        if (scope !== 'fp:thread') expect(now, `${scope} ${key}`).toBe(value);
        else if (key === C2) expect(now, 'an unreadable value is kept as it was').toBe(value);
        else expect(parseThreadState(now), `${scope} ${key}`).toEqual(parseThreadState(value));
      }
      // Unknown sections survive too: the packed value unpacks to the very maps the JSON held.
      expect(unpackHashMaps(store.get('fp:thread', 'legacy-id') as Buffer)).toEqual(JSON.parse(before[6]![2]));
      expect(Buffer.isBuffer(store.get('fp:thread', C1))).toBe(true);
      expect(rows(db, 'SELECT scope, count(*) AS n FROM kv_state GROUP BY scope')).toEqual([
        { scope: 'fp:contacts', n: 1 },
        { scope: 'fp:tags', n: 1 },
        { scope: 'scan:backfill', n: 1 },
      ]);
      expect([store.count('fp:conversations'), store.count('fp:thread_at'), store.count('fp:thread')]).toEqual([
        3, 1, 3,
      ]);
      db.close();
    },
  );
});
