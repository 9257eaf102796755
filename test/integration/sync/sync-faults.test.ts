import { afterAll, describe, expect, it } from 'vitest';
import { TABLES, type TableName } from '../../../src/output/tables.js';
import { content, merged, type Row, readTables, type SyncEnv, startSyncEnv } from './support.js';

const envs: SyncEnv[] = [];
afterAll(async () => {
  for (const env of envs) await env.close();
});

// Same seed, same data: the clean sandbox is the reference for the faulty one.
const SEED = 21;
const CONVERSATIONS = 2000;
// Hours and holidays are seeded relative to each sandbox's start instant, so their
// timestamps differ by the milliseconds between the two starts.
const CLOCK_COLUMNS = new Set(['business_hours', 'holidays']);

function comparable(table: TableName, row: Record<string, unknown>) {
  const { created_at, updated_at, ...rest } = content(row);
  return CLOCK_COLUMNS.has(table) ? rest : { created_at, updated_at, ...rest };
}

describe('a sync through injected faults', () => {
  it('finishes with the same output as a fault-free sync', async () => {
    const clean = await startSyncEnv({ seed: SEED, conversations: CONVERSATIONS });
    envs.push(clean);
    const faulty = await startSyncEnv({
      seed: SEED,
      conversations: CONVERSATIONS,
      faults: '500:0.0125,reset:0.0125,429:0.0025:1',
    });
    envs.push(faulty);

    const a = await clean.sync();
    const b = await faulty.sync();
    expect(b.summary.status).toBe('succeeded');
    const stats = faulty.sandbox.stats();
    // The faults really happened, and every one was absorbed by a retry.
    expect(stats.by_status['500'] ?? 0).toBeGreaterThan(0);
    expect(stats.by_status.reset ?? 0).toBeGreaterThan(0);
    expect(b.summary.requests.retries).toBeGreaterThanOrEqual(
      (stats.by_status['500'] ?? 0) + (stats.by_status.reset ?? 0),
    );

    const want = readTables(clean.outDir);
    const got = readTables(faulty.outDir);
    // Report days run up to each run's own UTC date: a pair of runs on either side of
    // midnight is compared on the days both pulled.
    const lastDay = [a.summary.started_at, b.summary.started_at].map((t) => t.slice(0, 10)).sort()[0]!;
    const pulledByBoth = (table: TableName, rows: Row[] = []) =>
      table === 'report_productivity_daily' ? rows.filter((row) => String(row.date) <= lastDay) : rows;
    for (const table of Object.keys(TABLES) as TableName[]) {
      const pk = [...TABLES[table]];
      const wantRows = merged(pulledByBoth(table, want[table]), pk);
      const gotRows = merged(pulledByBoth(table, got[table]), pk);
      expect(gotRows.size, table).toBe(wantRows.size);
      for (const [key, row] of wantRows) {
        expect(comparable(table, gotRows.get(key)!), `${table} ${key}`).toEqual(comparable(table, row));
      }
    }
    expect(a.summary.conversations_scanned).toBe(b.summary.conversations_scanned);
    // Two syncs of 2 000 conversations with their threads, about 26 faults of each kind: 14 CPU-s;
    // most of its 40 s is the retries' real backoff.
  }, 180_000);
});
