import { describe, expect, it } from 'vitest';
import type { StreamName } from '../../../src/config/schema.js';
import { createDaemonMetrics } from '../../../src/daemon/daemon-metrics.js';
import type { TargetStatus } from '../../../src/report/warehouse-status.js';
import { completenessFigure } from '../../../src/streams/completeness.js';
import type { SyncProgress, SyncSummary } from '../../../src/sync/sync-types.js';

const stats = () => [{ labels: {}, stats: { requests: 0, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 } }];

async function sample(metrics: ReturnType<typeof createDaemonMetrics>, name: string, stream?: string) {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => stream === undefined || v.labels.stream === stream)?.value;
}

function summaryWith(over: Partial<Omit<SyncSummary, 'tables'>> & { tables?: object }): SyncSummary {
  return { tables: {}, completeness: [], ...over } as unknown as SyncSummary;
}

describe('daemon completeness and backfill gauges', () => {
  it('hold each stream’s last figure, kept when a later run did not measure that stream', async () => {
    const metrics = createDaemonMetrics(stats);
    const run = (summary: SyncSummary) =>
      metrics.recordRun({ job: 'sync', outcome: 'succeeded', durationMs: 1, finishedAt: new Date(), summary });
    run(
      summaryWith({
        completeness: [completenessFigure('conversations', 128, 127), completenessFigure('inboxes', 3, 3)],
      }),
    );
    expect(await sample(metrics, 'helpdesk_sync_completeness_expected', 'conversations')).toBe(128);
    expect(await sample(metrics, 'helpdesk_sync_completeness_live', 'conversations')).toBe(127);
    expect(await sample(metrics, 'helpdesk_sync_completeness_unexplained', 'conversations')).toBe(1);
    run(summaryWith({ completeness: [completenessFigure('inboxes', 4, 4)] }));
    expect(await sample(metrics, 'helpdesk_sync_completeness_unexplained', 'conversations')).toBe(1);
    expect(await sample(metrics, 'helpdesk_sync_completeness_expected', 'inboxes')).toBe(4);
  });

  it('follow a backfill while the run goes on, and read 0 seconds left once it is complete', async () => {
    const metrics = createDaemonMetrics(stats);
    const progress = { backfill: { status: 'running', done: 300, total: 1000, eta_ms: 70_000 } } as SyncProgress;
    metrics.recordProgress(progress);
    expect(await sample(metrics, 'helpdesk_sync_backfill_done')).toBe(300);
    expect(await sample(metrics, 'helpdesk_sync_backfill_total')).toBe(1000);
    expect(await sample(metrics, 'helpdesk_sync_backfill_eta_seconds')).toBe(70);
    metrics.recordRun({
      job: 'sync',
      outcome: 'succeeded',
      durationMs: 1,
      finishedAt: new Date(),
      summary: summaryWith({ backfill: { status: 'complete', done: 1000, total: 1000 } }),
    });
    expect(await sample(metrics, 'helpdesk_sync_backfill_done')).toBe(1000);
    expect(await sample(metrics, 'helpdesk_sync_backfill_eta_seconds')).toBe(0);
  });
});

describe('daemon metrics of a partial run', () => {
  const failed = (stream: StreamName) => ({ stream, code: 'API_REDIRECT', message: 'GET /holidays redirected' });
  const finish = (
    metrics: ReturnType<typeof createDaemonMetrics>,
    outcome: 'succeeded' | 'partial' | 'failed' | 'interrupted',
    over: Partial<SyncSummary> = {},
  ) =>
    metrics.recordRun({
      job: 'sync',
      outcome,
      durationMs: 1,
      finishedAt: new Date(Date.UTC(2026, 2, 10, 12)),
      ...(outcome === 'failed'
        ? {}
        : { summary: summaryWith({ status: outcome, streams: ['inboxes', 'holidays'], failed_streams: [], ...over }) }),
    });

  it('counts it under its own outcome, ends a streak of failed runs, and is no success', async () => {
    const metrics = createDaemonMetrics(stats);
    finish(metrics, 'failed');
    metrics.recordJob('failed');
    finish(metrics, 'failed');
    metrics.recordJob('failed');
    expect(metrics.consecutiveFailures()).toBe(2);
    finish(metrics, 'partial', { failed_streams: [failed('holidays')] });
    metrics.recordJob('partial');
    expect(metrics.consecutiveFailures()).toBe(0);
    const runs = await metrics.registry.getSingleMetric('helpdesk_sync_runs_total')?.get();
    expect(runs?.values.map((v) => [v.labels.outcome, v.value])).toEqual([
      ['failed', 2],
      ['partial', 1],
    ]);
    expect(await sample(metrics, 'helpdesk_sync_last_success_timestamp_seconds')).toBeUndefined();
  });

  it('names the failed stream until a run that selected it runs it; an interrupted run clears nothing', async () => {
    const metrics = createDaemonMetrics(stats);
    finish(metrics, 'partial', { failed_streams: [failed('holidays')] });
    expect(await sample(metrics, 'helpdesk_sync_stream_failed', 'holidays')).toBe(1);
    expect(await sample(metrics, 'helpdesk_sync_stream_failed', 'inboxes')).toBe(0);
    finish(metrics, 'interrupted');
    expect(await sample(metrics, 'helpdesk_sync_stream_failed', 'holidays')).toBe(1);
    finish(metrics, 'succeeded', { streams: ['inboxes'] });
    expect(await sample(metrics, 'helpdesk_sync_stream_failed', 'holidays')).toBe(1);
    finish(metrics, 'succeeded');
    expect(await sample(metrics, 'helpdesk_sync_stream_failed', 'holidays')).toBe(0);
  });
});

describe('daemon metrics of a config without accounts:', () => {
  it('serve the series a single-account daemon always served, with no account or origin label', async () => {
    const metrics = createDaemonMetrics(() => [
      {
        labels: {},
        stats: { requests: 3, byStatus: { '200': 2, '429': 1 }, retries: 1, rateLimited: 1, waitedMs: 500 },
      },
    ]);
    const summary = summaryWith({
      status: 'partial',
      tables: { conversations: { rows: 3, tombstones: 1, rejected: 0 } },
      completeness: [completenessFigure('conversations', 10, 10)],
      backfill: { status: 'running', done: 1, total: 10, eta_ms: 1000 },
      streams: ['conversations', 'holidays'],
      failed_streams: [{ stream: 'holidays', code: 'API_REDIRECT', message: 'refused' }],
    });
    const finishedAt = new Date(Date.UTC(2026, 2, 10, 12));
    metrics.recordRun({ job: 'sync', outcome: 'partial', durationMs: 1000, finishedAt, summary });
    metrics.recordRun({ job: 'push', outcome: 'succeeded', durationMs: 1000, finishedAt });
    metrics.recordJob('partial');
    const text = await metrics.registry.metrics();
    const series = text
      .split('\n')
      .filter((l) => l.startsWith('helpdesk_sync_'))
      .map((l) => l.replace(/ \S+$/, ''))
      .filter((l) => !l.includes('_bucket{'));
    expect(series).toEqual([
      'helpdesk_sync_runs_total{job="sync",outcome="partial"}',
      'helpdesk_sync_runs_total{job="push",outcome="succeeded"}',
      'helpdesk_sync_rows_written_total{table="conversations"}',
      'helpdesk_sync_tombstones_written_total{table="conversations"}',
      'helpdesk_sync_run_duration_seconds_sum{job="sync"}',
      'helpdesk_sync_run_duration_seconds_count{job="sync"}',
      'helpdesk_sync_run_duration_seconds_sum{job="push"}',
      'helpdesk_sync_run_duration_seconds_count{job="push"}',
      'helpdesk_sync_last_success_timestamp_seconds{job="push"}',
      'helpdesk_sync_consecutive_failed_runs',
      'helpdesk_sync_requests_total{status="200"}',
      'helpdesk_sync_requests_total{status="429"}',
      'helpdesk_sync_rate_limited_total',
      'helpdesk_sync_retries_total',
      'helpdesk_sync_rate_budget_wait_seconds_total',
      'helpdesk_sync_completeness_expected{stream="conversations"}',
      'helpdesk_sync_completeness_live{stream="conversations"}',
      'helpdesk_sync_completeness_unexplained{stream="conversations"}',
      'helpdesk_sync_stream_failed{stream="holidays"}',
      'helpdesk_sync_stream_failed{stream="conversations"}',
      'helpdesk_sync_backfill_done',
      'helpdesk_sync_backfill_total',
      'helpdesk_sync_backfill_eta_seconds',
    ]);
  });
});

describe('daemon metrics of several accounts', () => {
  const value = async (metrics: ReturnType<typeof createDaemonMetrics>, name: string, labels: Record<string, string>) =>
    (await metrics.registry.getSingleMetric(name)?.get())?.values.find((v) =>
      Object.entries(labels).every(([k, l]) => v.labels[k] === l),
    )?.value;

  it("keep each account's runs, tables, completeness, failures and backfill apart under its name", async () => {
    const metrics = createDaemonMetrics(() => []);
    const finishedAt = new Date(Date.UTC(2026, 2, 10, 12));
    const run = { job: 'sync', durationMs: 2000, finishedAt };
    metrics.recordRun({
      ...run,
      account: 'acme',
      outcome: 'partial',
      summary: summaryWith({
        status: 'partial',
        tables: { conversations: { rows: 5, tombstones: 0, rejected: 0 } },
        completeness: [completenessFigure('conversations', 10, 9)],
        streams: ['conversations', 'holidays'],
        failed_streams: [{ stream: 'holidays', code: 'API_REDIRECT', message: 'refused' }],
      }),
    });
    metrics.recordRun({
      ...run,
      account: 'globex',
      outcome: 'succeeded',
      summary: summaryWith({
        status: 'succeeded',
        tables: { conversations: { rows: 7, tombstones: 1, rejected: 0 } },
        completeness: [completenessFigure('conversations', 20, 20)],
        streams: ['conversations', 'holidays'],
        backfill: { status: 'complete', done: 20, total: 20 },
      }),
    });
    metrics.recordRun({ ...run, account: 'initech', outcome: 'failed' });
    metrics.recordJob('partial');

    const runs = await metrics.registry.getSingleMetric('helpdesk_sync_runs_total')?.get();
    expect(runs?.values.map((v) => [v.labels.account, v.labels.outcome, v.value])).toEqual([
      ['acme', 'partial', 1],
      ['globex', 'succeeded', 1],
      ['initech', 'failed', 1],
    ]);
    expect(await value(metrics, 'helpdesk_sync_rows_written_total', { account: 'acme', table: 'conversations' })).toBe(
      5,
    );
    expect(
      await value(metrics, 'helpdesk_sync_rows_written_total', { account: 'globex', table: 'conversations' }),
    ).toBe(7);
    const unexplained = 'helpdesk_sync_completeness_unexplained';
    expect(await value(metrics, unexplained, { account: 'acme', stream: 'conversations' })).toBe(1);
    expect(await value(metrics, unexplained, { account: 'globex', stream: 'conversations' })).toBe(0);
    expect(await value(metrics, 'helpdesk_sync_stream_failed', { account: 'acme', stream: 'holidays' })).toBe(1);
    expect(await value(metrics, 'helpdesk_sync_stream_failed', { account: 'globex', stream: 'holidays' })).toBe(0);
    expect(await value(metrics, 'helpdesk_sync_backfill_done', { account: 'globex' })).toBe(20);
    // Only a success is one: the partial and the failed account have no success time.
    const success = await metrics.registry.getSingleMetric('helpdesk_sync_last_success_timestamp_seconds')?.get();
    expect(success?.values.map((v) => [v.labels.account, v.value])).toEqual([['globex', finishedAt.getTime() / 1000]]);
    const failed = await metrics.registry.getSingleMetric('helpdesk_sync_account_failed')?.get();
    expect(failed?.values.map((v) => [v.labels.account, v.value])).toEqual([
      ['acme', 0],
      ['globex', 0],
      ['initech', 1],
    ]);
    const durations = await value(metrics, 'helpdesk_sync_run_duration_seconds', { account: 'initech' });
    expect(durations).toBeDefined();
    // One account failed while the others committed: a partial job, no failure in a row.
    expect(metrics.consecutiveFailures()).toBe(0);
  });

  it('count requests per queue, by origin and local address', async () => {
    const stats = (requests: number) => ({
      requests,
      byStatus: { '200': requests },
      retries: 0,
      rateLimited: requests % 2,
      waitedMs: 0,
    });
    const metrics = createDaemonMetrics(() => [
      { labels: { origin: 'https://a.example.com' }, stats: stats(5) },
      { labels: { origin: 'https://a.example.com', local_address: '10.0.0.2' }, stats: stats(3) },
    ]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('helpdesk_sync_requests_total{origin="https://a.example.com",status="200"} 5\n');
    expect(text).toContain(
      'helpdesk_sync_requests_total{origin="https://a.example.com",local_address="10.0.0.2",status="200"} 3\n',
    );
    expect(text).toContain(
      'helpdesk_sync_rate_limited_total{origin="https://a.example.com",local_address="10.0.0.2"} 1\n',
    );
  });
});

describe('daemon load gauges', () => {
  const target = (name: string, over: Partial<TargetStatus> = {}): TargetStatus => ({
    target: name,
    lag: { manifests: 0 },
    ...over,
  });
  const last = (outcome: 'succeeded' | 'failed', over: object = {}) => ({
    target: 'unused',
    listed_at: '2026-03-10T12:00:00.000Z',
    finished_at: '2026-03-10T12:01:00.000Z',
    outcome,
    manifests_loaded: 1,
    rows: 5,
    waiting: [],
    ...over,
  });

  it("serve each account's targets as last read: lag, failure, last success; no lag in seconds while none is known loaded", async () => {
    let loads: Array<{ account?: string; targets: TargetStatus[] }> = [
      {
        account: 'acme',
        targets: [
          target('duckdb:/w.duckdb', {
            last: last('succeeded', { last_succeeded_at: '2026-03-10T12:01:00.000Z' }),
            lag: {
              manifests: 2,
              newest_committed: { run_id: 'b', finished_at: '2026-03-10T12:30:00.000Z' },
              newest_loaded: { run_id: 'a', finished_at: '2026-03-10T12:00:00.000Z' },
            },
          }),
        ],
      },
      {
        account: 'globex',
        targets: [
          target('postgres://loader:***@db/w', {
            last: last('failed', { error: { code: 'LOAD_FAILED' } }),
            lag: { manifests: 3, newest_committed: { run_id: 'c', finished_at: '2026-03-10T12:30:00.000Z' } },
          }),
        ],
      },
    ];
    const metrics = createDaemonMetrics(stats, () => loads);
    const values = async (name: string) =>
      ((await metrics.registry.getSingleMetric(name)?.get())?.values ?? []).map((v) => [v.labels, v.value]);
    expect(await values('helpdesk_sync_load_lag_manifests')).toEqual([
      [{ account: 'acme', target: 'duckdb:/w.duckdb' }, 2],
      [{ account: 'globex', target: 'postgres://loader:***@db/w' }, 3],
    ]);
    expect(await values('helpdesk_sync_load_lag_seconds')).toEqual([
      [{ account: 'acme', target: 'duckdb:/w.duckdb' }, 1800],
    ]);
    expect(await values('helpdesk_sync_load_failed')).toEqual([
      [{ account: 'acme', target: 'duckdb:/w.duckdb' }, 0],
      [{ account: 'globex', target: 'postgres://loader:***@db/w' }, 1],
    ]);
    expect(await values('helpdesk_sync_load_last_success_timestamp_seconds')).toEqual([
      [{ account: 'acme', target: 'duckdb:/w.duckdb' }, Date.parse('2026-03-10T12:01:00.000Z') / 1000],
    ]);
    // Read again when scraped: a target caught up reads 0, one no longer read is gone.
    loads = [{ targets: [target('duckdb:/w.duckdb', { last: last('succeeded') })] }];
    expect(await values('helpdesk_sync_load_lag_manifests')).toEqual([[{ target: 'duckdb:/w.duckdb' }, 0]]);
    expect(await values('helpdesk_sync_load_lag_seconds')).toEqual([[{ target: 'duckdb:/w.duckdb' }, 0]]);
  });
});
