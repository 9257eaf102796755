import { describe, expect, it } from 'vitest';
import type { StreamName } from '../../../src/config/schema.js';
import { createDaemonMetrics } from '../../../src/daemon/daemon-metrics.js';
import { completenessFigure } from '../../../src/streams/completeness.js';
import type { SyncProgress, SyncSummary } from '../../../src/sync/sync-types.js';

const stats = () => ({ requests: 0, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 });

async function sample(metrics: ReturnType<typeof createDaemonMetrics>, name: string, stream?: string) {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => stream === undefined || v.labels.stream === stream)?.value;
}

function summaryWith(over: Partial<SyncSummary>): SyncSummary {
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
    finish(metrics, 'failed');
    expect(metrics.consecutiveFailures()).toBe(2);
    finish(metrics, 'partial', { failed_streams: [failed('holidays')] });
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
