import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateDb, type StateDb } from '../../../src/state/database.js';
import { createKvStore } from '../../../src/state/kv-store.js';
import { applyChanges } from '../../../src/state/remote/apply-changes.js';
import { tableKeys } from '../../../src/state/remote/table-keys.js';
import { trackChanges } from '../../../src/state/remote/track-changes.js';
import { random } from '../../support/seeded-random.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hs-track-changes-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Every row of every table, in key order, bytes as hex: equal dumps are equal databases. */
function dump(db: Database.Database): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const { table, key } of tableKeys(db)) {
    out[table] = db
      .prepare(`SELECT * FROM "${table}" ORDER BY ${key.map((k) => `"${k}"`).join(', ')}`)
      .all()
      .map((row) =>
        Object.fromEntries(
          Object.entries(row as object).map(([k, v]) => [k, Buffer.isBuffer(v) ? `x'${v.toString('hex')}'` : v]),
        ),
      );
  }
  return out;
}

function randomWrites(state: StateDb, next: () => number, round: number): void {
  const kv = createKvStore(state);
  const { db } = state;
  const id = () => `0000000${Math.floor(next() * 40)}-0000-4000-8000-000000000000`.slice(-36);
  db.transaction(() => {
    for (let i = 0; i < 60; i++) {
      const r = next();
      if (r < 0.2) kv.put('fp:conversations', id(), `fp${round}x${i}`.padEnd(16, 'A'));
      else if (r < 0.3) kv.remove('fp:conversations', id());
      else if (r < 0.4) kv.put('fp:thread', id(), Buffer.from([1, round, i]));
      else if (r < 0.45) kv.remove('fp:thread', id());
      else if (r < 0.55) kv.put('fp:tags', `t${Math.floor(next() * 10)}`, `v${round}`);
      else if (r < 0.6) kv.remove('fp:tags', `t${Math.floor(next() * 10)}`);
      else if (r < 0.7) {
        const run = `r${Math.floor(next() * 8)}`;
        db.prepare("INSERT OR REPLACE INTO runs (run_id, started_at, status) VALUES (?, ?, 'running')").run(
          run,
          `s${round}`,
        );
      } else if (r < 0.75) db.prepare('DELETE FROM runs WHERE run_id = ?').run(`r${Math.floor(next() * 8)}`);
      else if (r < 0.85) {
        // A row inserted and deleted again between two copies, and one moved to another key.
        db.prepare("INSERT INTO runs (run_id, started_at, status) VALUES ('tmp', 'x', 'running')").run();
        db.prepare("DELETE FROM runs WHERE run_id = 'tmp'").run();
        db.prepare('UPDATE OR REPLACE runs SET run_id = ? WHERE run_id = ?').run(
          `r${Math.floor(next() * 8)}x`,
          `r${Math.floor(next() * 8)}`,
        );
      } else {
        db.prepare(
          "INSERT OR REPLACE INTO push_resources (kind, key, remote_id, applied_hash, applied_at) VALUES ('holiday', ?, ?, 'h', 'x')",
        ).run(`k${Math.floor(next() * 5)}`, `${round}`);
      }
    }
  })();
}

describe('change files', () => {
  it('carry a database from one copy to the next exactly, whatever mix of writes came between', () => {
    const source = openStateDb(join(dir, 'source.sqlite'));
    const tracker = trackChanges(source.db);
    const next = random(7);
    source.db.prepare(`VACUUM INTO ?`).run(join(dir, 'copy.sqlite'));
    const copy = new Database(join(dir, 'copy.sqlite'));
    for (let round = 1; round <= 12; round++) {
      randomWrites(source, next, round);
      const path = join(dir, `changes-${round}.sqlite`);
      const written = tracker.writeChanges(path);
      expect(written, `round ${round}`).toBeDefined();
      applyChanges(copy, path);
      tracker.forget(written!.upTo);
      expect(dump(copy), `round ${round}`).toEqual(dump(source.db));
    }
    expect(tracker.writeChanges(join(dir, 'none.sqlite'))).toBeUndefined();
    copy.close();
    source.close();
  });

  it('leave out rows that were inserted and deleted between two copies, and hold only the rows that changed', () => {
    const source = openStateDb(join(dir, 'source.sqlite'));
    const kv = createKvStore(source);
    source.db.transaction(() => {
      for (let i = 0; i < 3000; i++) kv.put('fp:contacts', `c${i}`, 'x'.repeat(60));
    })();
    const tracker = trackChanges(source.db);
    source.db.transaction(() => {
      kv.put('fp:contacts', 'c1', 'changed');
      kv.put('fp:contacts', 'new', 'row');
      kv.put('fp:contacts', 'gone-again', 'row');
      kv.remove('fp:contacts', 'gone-again');
      kv.remove('fp:contacts', 'c2');
    })();
    const path = join(dir, 'changes.sqlite');
    expect(tracker.writeChanges(path)?.rows).toBe(3);
    const file = new Database(path, { readonly: true });
    expect(file.prepare('SELECT key, value FROM kv_state ORDER BY key').all()).toEqual([
      { key: 'c1', value: 'changed' },
      { key: 'new', value: 'row' },
    ]);
    expect(file.prepare('SELECT tbl, pk FROM __deleted__').all()).toEqual([
      { tbl: 'kv_state', pk: '["fp:contacts","c2"]' },
    ]);
    file.close();
    expect(statSync(path).size).toBeLessThan(8 * 1024);
    source.close();
  });
});
