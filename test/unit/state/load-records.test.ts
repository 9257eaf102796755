import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { describeLoadTarget } from '../../../src/config/load-target.js';
import { LoadError } from '../../../src/errors.js';
import { accountLoadOutcome } from '../../../src/load/recorded-load.js';
import type { Manifest } from '../../../src/output/manifest.js';
import { openStateDb, type StateDb } from '../../../src/state/database.js';
import { readLoadLag } from '../../../src/state/load-lag.js';
import { type LoadRecord, localLoadRecords, recordLoad, s3LoadRecords } from '../../../src/state/load-records.js';
import { createRunStore } from '../../../src/state/run-store.js';
import { MemoryObjectStore } from '../lock/memory-object-store.js';

let dir: string;
let state: StateDb;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hs-load-records-'));
  state = openStateDb(join(dir, 'state.sqlite'));
});
afterEach(() => {
  state.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A run whose manifest the state confirmed written at `at`. */
function committed(runId: string, at: string): void {
  const runs = createRunStore(state);
  runs.begin(runId, at);
  runs.claimForManifest(runId);
  runs.confirmManifest(runId, at);
}

const record = (over: Partial<LoadRecord>): LoadRecord => ({
  target: 'duckdb:w.duckdb',
  listed_at: '2026-01-01T10:00:00.000Z',
  finished_at: '2026-01-01T10:01:00.000Z',
  outcome: 'succeeded',
  manifests_loaded: 1,
  rows: 10,
  waiting: [],
  ...over,
});

describe('the lag of a target behind the state', () => {
  it('without a record every committed manifest is behind, and none is known loaded', () => {
    committed('20260101T090000Z-aaaaaa', '2026-01-01T09:00:05.000Z');
    committed('20260101T091500Z-bbbbbb', '2026-01-01T09:15:05.000Z');
    expect(readLoadLag(state.db, undefined)).toEqual({
      manifests: 2,
      newest_committed: { run_id: '20260101T091500Z-bbbbbb', finished_at: '2026-01-01T09:15:05.000Z' },
    });
  });

  it('counts those confirmed after the load began and those it left waiting; the newest of the rest is the newest loaded', () => {
    committed('20260101T090000Z-aaaaaa', '2026-01-01T09:00:05.000Z');
    committed('20260101T091500Z-bbbbbb', '2026-01-01T09:15:05.000Z');
    committed('20260101T093000Z-cccccc', '2026-01-01T09:30:05.000Z');
    committed('20260101T110000Z-dddddd', '2026-01-01T11:00:05.000Z');
    // A run still running (no manifest yet) is no manifest behind.
    createRunStore(state).begin('20260101T111500Z-eeeeee', '2026-01-01T11:15:00.000Z');
    const lag = readLoadLag(state.db, record({ waiting: ['20260101T093000Z-cccccc'] }));
    expect(lag).toEqual({
      manifests: 2,
      newest_committed: { run_id: '20260101T110000Z-dddddd', finished_at: '2026-01-01T11:00:05.000Z' },
      newest_loaded: { run_id: '20260101T091500Z-bbbbbb', finished_at: '2026-01-01T09:15:05.000Z' },
    });
    expect(readLoadLag(state.db, record({ listed_at: '2026-01-01T12:00:00.000Z' })).manifests).toBe(0);
  });
});

describe('the load records beside the state', () => {
  it('a load that failed before listing keeps the listing and the last success of the one before', async () => {
    const store = localLoadRecords(join(dir, 'state.sqlite'));
    await recordLoad(store, { ...record({ waiting: ['20260101T093000Z-cccccc'] }) });
    await recordLoad(store, {
      target: 'duckdb:w.duckdb',
      finished_at: '2026-01-01T11:00:00.000Z',
      outcome: 'failed',
      manifests_loaded: 0,
      rows: 0,
      error: { code: 'LOAD_FAILED' },
    });
    await recordLoad(store, record({ target: 'postgres://loader:***@db/w' }));
    const records = await store.read();
    expect(records['duckdb:w.duckdb']).toEqual({
      target: 'duckdb:w.duckdb',
      listed_at: '2026-01-01T10:00:00.000Z',
      finished_at: '2026-01-01T11:00:00.000Z',
      outcome: 'failed',
      manifests_loaded: 0,
      rows: 0,
      error: { code: 'LOAD_FAILED' },
      waiting: ['20260101T093000Z-cccccc'],
      last_succeeded_at: '2026-01-01T10:01:00.000Z',
    });
    expect(Object.keys(records)).toEqual(['duckdb:w.duckdb', 'postgres://loader:***@db/w']);
    expect(JSON.parse(readFileSync(join(dir, 'state.sqlite.loads.json'), 'utf8'))).toEqual(records);
  });

  it('in object storage, a write that loses to another writer reads again and keeps both targets', async () => {
    const store = new MemoryObjectStore(systemClock);
    const records = s3LoadRecords(store, 'helpdesk/state.sqlite');
    await records.write(record({ target: 'duckdb:a.duckdb' }));
    const put = store.put.bind(store);
    let raced = false;
    store.put = async (key, body, condition) => {
      if (!raced) {
        raced = true;
        const other = { ...(await records.read()), 'duckdb:b.duckdb': record({ target: 'duckdb:b.duckdb' }) };
        store.write(key, JSON.stringify(other));
      }
      return put(key, body, condition);
    };
    await records.write(record({ target: 'duckdb:c.duckdb' }));
    expect(Object.keys(await records.read()).sort()).toEqual(['duckdb:a.duckdb', 'duckdb:b.duckdb', 'duckdb:c.duckdb']);
  });
});

describe("one account's outcome of a load", () => {
  const manifest = (run_id: string, account: string, rows: number) =>
    ({ run_id, account, tables: { conversations: rows, messages: 1 } }) as unknown as Manifest;

  it('counts its own manifests and rows, names the ones it left waiting, and says the code of the failure', () => {
    const pending = [
      manifest('20260101T090000Z-aaaaaa', 'acme', 5),
      manifest('20260101T090100Z-bbbbbb', 'globex', 7),
      manifest('20260101T091500Z-cccccc', 'acme', 3),
      manifest('20260101T091600Z-dddddd', 'globex', 2),
    ];
    const listed = { pending, loaded: 2, accountOf: (m: Manifest) => m.account ?? null };
    const load = {
      target: 'duckdb:w.duckdb',
      ended: { error: new LoadError('file altered') },
      listed,
      listedAt: '2026-01-01T10:00:00.000Z',
      finishedAt: '2026-01-01T10:00:09.000Z',
    };
    expect(accountLoadOutcome(load, (m) => m.account === 'acme')).toEqual({
      target: 'duckdb:w.duckdb',
      listed_at: '2026-01-01T10:00:00.000Z',
      finished_at: '2026-01-01T10:00:09.000Z',
      outcome: 'failed',
      manifests_loaded: 1,
      rows: 6,
      error: { code: 'LOAD_FAILED' },
      waiting: ['20260101T091500Z-cccccc'],
    });
    const thrown = accountLoadOutcome({ ...load, listed: undefined }, () => true);
    expect(thrown).not.toHaveProperty('listed_at');
    expect(thrown).not.toHaveProperty('waiting');
  });
});

describe('a target described for records, pages and metrics', () => {
  it('says no password, in the user part or as a parameter', () => {
    expect(describeLoadTarget({ kind: 'postgres', url: 'postgres://loader:s3cr%40t@db:5432/w' })).toBe(
      'postgres://loader:***@db:5432/w',
    );
    expect(
      describeLoadTarget({ kind: 'postgres', url: 'postgres://loader@db/w?password=s3cret&sslmode=require' }),
    ).toBe('postgres://loader@db/w?password=***&sslmode=require');
  });
});

describe('no state, no record', () => {
  it('a load beside a state file that does not exist writes nothing', async () => {
    const store = localLoadRecords(join(dir, 'elsewhere', 'state.sqlite'));
    await recordLoad(store, record({}));
    expect(await store.read()).toEqual({});
    expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
  });
});
