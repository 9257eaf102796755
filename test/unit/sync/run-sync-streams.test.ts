import { beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import type { SyncProgress } from '../../../src/sync/run-sync.js';
import { FakeClock } from '../api/fake-clock.js';
import { FakeHelpdesk } from './fake-helpdesk.js';
import { FakeStore, idsOf } from './fake-output.js';
import { HelpdeskWorld } from './helpdesk-world.js';
import { syncOnce, testConfig } from './sync-harness.js';

const at = (day: string) => new FakeClock(Date.parse(`${day}T08:00:00Z`));

describe('users, reports, selection and progress', () => {
  let api: FakeHelpdesk;
  let store: FakeStore;

  beforeEach(() => {
    api = new FakeHelpdesk();
    new HelpdeskWorld(api).seed({ conversations: 30 });
    store = new FakeStore();
  });

  it('users with a token lacking users:read (403) is skipped with a warning; the run still succeeds', async () => {
    await syncOnce(api, store, { streams: ['users'] });
    api.users = 'forbidden';
    const { summary, output } = await syncOnce(api, store, { streams: ['users', 'inboxes'] });
    expect(summary.status).toBe('succeeded');
    expect(summary.skipped_streams).toEqual([{ stream: 'users', reason: expect.stringContaining('users:read') }]);
    expect(summary.warnings).toEqual([{ code: 'STREAM_SKIPPED', message: expect.stringContaining('403') }]);
    // Nothing listed, so nothing is known to be gone: no tombstone.
    expect(store.rowsOf(output.runId, 'users')).toEqual([]);
    expect(store.rowsOf(output.runId, 'inboxes')).toHaveLength(2);
  });

  it('reports: every day from start_date once, then today and lookback_days before it on each run', async () => {
    const days = (from: number) =>
      api.requests
        .slice(from)
        .filter((r) => r.startsWith('GET /reports/inbox-1/'))
        .map((r) => r.slice(-10));
    const first = await syncOnce(api, store, { streams: ['reports'], clock: at('2026-03-10') });
    expect(days(first.requestsBefore)).toEqual([
      '2026-03-01',
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
      '2026-03-07',
      '2026-03-08',
      '2026-03-09',
      '2026-03-10',
    ]);
    expect(store.rowsOf(first.output.runId, 'report_productivity_daily')).toHaveLength(20);
    expect(store.rowsOf(first.output.runId, 'report_productivity_daily')[0]?.record).toMatchObject({
      inbox_id: 'inbox-1',
      date: '2026-03-01',
      created_conversations: 0,
    });

    const again = await syncOnce(api, store, { streams: ['reports'], clock: at('2026-03-10') });
    expect(days(again.requestsBefore)).toEqual(['2026-03-08', '2026-03-09', '2026-03-10']);
    expect(store.rowsOf(again.output.runId)).toEqual([]);

    api.report = (inbox, day) => ({ created_conversations: inbox === 'inbox-1' && day === '2026-03-09' ? 5 : 0 });
    const next = await syncOnce(api, store, { streams: ['reports'], clock: at('2026-03-11') });
    expect(days(next.requestsBefore)).toEqual(['2026-03-09', '2026-03-10', '2026-03-11']);
    const rows = store
      .rowsOf(next.output.runId, 'report_productivity_daily')
      .map((r) => `${r.record.inbox_id} ${r.record.date}`);
    expect(rows.sort()).toEqual(['inbox-1 2026-03-09', 'inbox-1 2026-03-11', 'inbox-2 2026-03-11']);

    const full = await syncOnce(api, store, { streams: ['reports'], clock: at('2026-03-11'), fullRefresh: true });
    expect(days(full.requestsBefore)).toHaveLength(11);
    expect(store.rowsOf(full.output.runId, 'report_productivity_daily')).toHaveLength(22);
  });

  it('reports: without start_date, the 30 days before today and today', async () => {
    const config = testConfig({ reports: { lookback_days: 7 } });
    const { requestsBefore } = await syncOnce(api, store, { streams: ['reports'], clock: at('2026-03-10'), config });
    const days = api.requests.slice(requestsBefore).filter((r) => r.startsWith('GET /reports/inbox-1/'));
    expect(days).toHaveLength(31);
    expect(days[0]).toContain('2026-02-08');
  });

  it('an unknown stream name, or --full-refresh of a stream not run, is a usage error listing valid names', async () => {
    const error = await syncOnce(api, store, { streams: ['conversations', 'nope' as never] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(64);
    expect((error as Error).message).toContain('nope');
    expect((error as Error).message).toContain('conversations, messages, contacts, tags');
    await expect(syncOnce(api, store, { streams: ['users'], fullRefresh: ['reports'] })).rejects.toBeInstanceOf(
      UsageError,
    );
    expect(api.requests).toEqual([]);
  });

  it('reads the inbox list once per run for inboxes, tags and reports', async () => {
    const { requestsBefore } = await syncOnce(api, store, { streams: ['inboxes', 'tags', 'reports'] });
    expect(api.requests.slice(requestsBefore).filter((r) => r.startsWith('GET /inboxes page'))).toHaveLength(1);
  });

  it('reports progress per stream and a summary with rows, requests and counters', async () => {
    const updates: SyncProgress[] = [];
    const { summary } = await syncOnce(api, store, { onProgress: (p) => updates.push(structuredClone(p)) });
    const last = updates.at(-1) as SyncProgress;
    expect(last.streams.map((s) => [s.stream, s.status])).toEqual([
      ['inboxes', 'done'],
      ['users', 'done'],
      ['business_hours', 'done'],
      ['holidays', 'done'],
      ['account', 'done'],
      ['tags', 'done'],
      ['conversations+contacts+messages', 'done'],
      ['reports', 'done'],
    ]);
    const scan = last.streams[6];
    expect(scan?.rows).toBe(30 + 30 + 60 + 30 + 10);
    expect(scan?.requests).toBe(1 + 30);
    expect(last.streams.reduce((n, s) => n + s.requests, 0)).toBe(summary.requests.requests);
    expect(summary.tables.conversations).toEqual({ rows: 30, tombstones: 0, rejected: 0 });
    expect(summary.tables.contacts.rows).toBe(10);
    expect(summary.conversations_scanned).toBe(30);
    expect(summary.conversations_changed).toBe(30);
    expect(summary.messages_fetched).toBe(30);
    expect(summary.status).toBe('succeeded');
    expect(idsOf(store, summary.run_id, 'inboxes').live).toEqual(['inbox-1', 'inbox-2']);
    // The token is in the config the run was given; it appears in neither the summary nor the progress.
    expect(JSON.stringify({ summary, updates })).not.toContain('test-token-123');
  });
});
