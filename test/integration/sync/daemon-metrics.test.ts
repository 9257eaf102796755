import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDaemon, type Scrape, value } from './daemon-scrape.js';
import { type SyncEnv, startSyncEnv } from './support.js';

let env: SyncEnv;
beforeAll(async () => {
  env = await startSyncEnv({ seed: 19, conversations: 30 });
});
afterAll(async () => {
  await env?.sandbox.close();
});

interface Run {
  requests: { requests: number; byStatus: Record<string, number> };
  tables: Record<string, { rows: number; tombstones: number }>;
  completeness: Array<{ stream: string; expected: number; live: number; unexplained: number }>;
}

function summaries(stderr: string): Run[] {
  return stderr
    .split('\n')
    .filter((l) => l.includes('"event":"sync.summary"'))
    .map((l) => (JSON.parse(l) as { summary: Run }).summary);
}

describe('daemon health and metrics', () => {
  it('serves /healthz and /metrics during scheduled runs; counters equal the run summaries', async () => {
    const path = env.configFile('daemon-metrics.json', {
      reports: { lookback_days: 0 },
      schedule: { sync: '* * * * * *' },
      metrics: { listen: '127.0.0.1:0' },
    });
    const { result, scrapes } = await runDaemon(
      path,
      (s) => value(s.samples, 'helpdesk_sync_runs_total', { job: 'sync', outcome: 'succeeded' }) >= 3,
    );
    expect(result.code).toBe(0);
    expect(scrapes.every((s) => s.health === 200 && s.healthBody.status === 'ok')).toBe(true);
    const last = scrapes.at(-1) as Scrape;
    const runs = summaries(result.stderr);
    const counted = value(last.samples, 'helpdesk_sync_runs_total', { job: 'sync', outcome: 'succeeded' });
    expect(counted).toBeGreaterThanOrEqual(3);
    expect(runs.length).toBeGreaterThanOrEqual(counted);
    const firstRuns = runs.slice(0, counted);
    const [run1, run2, run3] = firstRuns as [Run, Run, Run];

    // Run counters are recorded as each run ends: exactly the first `counted` summaries.
    for (const table of Object.keys(run1.tables)) {
      const rows = firstRuns.reduce((sum, r) => sum + (r.tables[table]?.rows ?? 0), 0);
      const tombstones = firstRuns.reduce((sum, r) => sum + (r.tables[table]?.tombstones ?? 0), 0);
      expect(value(last.samples, 'helpdesk_sync_rows_written_total', { table }), table).toBe(rows);
      expect(value(last.samples, 'helpdesk_sync_tombstones_written_total', { table }), table).toBe(tombstones);
    }
    expect(value(last.samples, 'helpdesk_sync_rows_written_total')).toBeGreaterThan(0);
    // The completeness gauges hold the last recorded run's figures, one series per stream.
    const figures = (firstRuns.at(-1) as Run).completeness;
    expect(figures.length).toBeGreaterThan(5);
    for (const f of figures) {
      const labels = { stream: f.stream };
      expect(value(last.samples, 'helpdesk_sync_completeness_expected', labels), f.stream).toBe(f.expected);
      expect(value(last.samples, 'helpdesk_sync_completeness_live', labels), f.stream).toBe(f.live);
      expect(value(last.samples, 'helpdesk_sync_completeness_unexplained', labels), f.stream).toBe(0);
    }

    // Requests are read live from the shared queue, so a run in progress may add to them:
    // at least the finished runs' own counts, at most those plus the next run's. Were a
    // summary to report the queue's cumulative count, the sum would overshoot at once.
    const sum = (list: typeof runs, status?: string) =>
      list.reduce((n, r) => n + (status ? (r.requests.byStatus[status] ?? 0) : r.requests.requests), 0);
    const upTo = runs.slice(0, counted + 1);
    const requests = value(last.samples, 'helpdesk_sync_requests_total');
    expect(requests).toBeGreaterThanOrEqual(sum(firstRuns));
    expect(requests).toBeLessThanOrEqual(sum(upTo));
    const ok = value(last.samples, 'helpdesk_sync_requests_total', { status: '200' });
    expect(ok).toBeGreaterThanOrEqual(sum(firstRuns, '200'));
    expect(ok).toBeLessThanOrEqual(sum(upTo, '200'));
    // A quiet re-sync costs the same few requests each time, not a growing total.
    expect(run3.requests.requests).toBe(run2.requests.requests);
    expect(run2.requests.requests).toBeLessThan(run1.requests.requests);

    expect(value(last.samples, 'helpdesk_sync_rate_limited_total')).toBe(0);
    expect(last.samples.some((s) => s.name === 'helpdesk_sync_rate_budget_wait_seconds_total')).toBe(true);
    expect(value(last.samples, 'helpdesk_sync_run_duration_seconds_count', { job: 'sync' })).toBe(counted);
    const lastSuccess = value(last.samples, 'helpdesk_sync_last_success_timestamp_seconds', { job: 'sync' });
    expect(Math.abs(lastSuccess * 1000 - Date.now())).toBeLessThan(10 * 60_000);
  });

  it('fails /healthz once runs have failed N times in a row', async () => {
    const path = env.configFile('daemon-failing.json', {
      // The sandbox refuses this token: every run fails at its first request (401).
      source: { token: 'not-a-sandbox-token' },
      schedule: { sync: '* * * * * *' },
      metrics: { listen: '127.0.0.1:0', unhealthy_after_failures: 2 },
    });
    const { result, scrapes } = await runDaemon(path, (s) => s.health === 503);
    expect(result.code).toBe(0);
    const unhealthy = scrapes.find((s) => s.health === 503) as Scrape;
    expect(unhealthy.healthBody).toEqual({
      status: 'unhealthy',
      reason: expect.stringMatching(/runs failed in a row/),
    });
    expect(
      value(unhealthy.samples, 'helpdesk_sync_runs_total', { job: 'sync', outcome: 'failed' }),
    ).toBeGreaterThanOrEqual(2);
    expect(value(unhealthy.samples, 'helpdesk_sync_consecutive_failed_runs')).toBeGreaterThanOrEqual(2);
    expect(value(unhealthy.samples, 'helpdesk_sync_requests_total', { status: '401' })).toBeGreaterThanOrEqual(2);
    // Healthy until the second failure in a row: failures only add up here, so metrics read
    // before a healthy answer show fewer than two (one read before an unhealthy answer may not).
    expect(scrapes.some((x) => x.healthAfter === 200)).toBe(true);
    for (const s of scrapes.filter((x) => x.healthAfter === 200)) {
      expect(value(s.samples, 'helpdesk_sync_consecutive_failed_runs')).toBeLessThan(2);
    }
    expect(result.stderr).not.toContain('not-a-sandbox-token');
  });

  it('counts partial runs apart, stays healthy through them, and names the stream that fails', async () => {
    const offsite = await startSyncEnv({ seed: 19, conversations: 30, quirks: 'offsite-redirect' });
    try {
      const path = offsite.configFile('daemon-partial.json', {
        reports: { lookback_days: 0 },
        schedule: { sync: '* * * * * *' },
        // One failed run would make /healthz fail: partial runs are not failed runs.
        metrics: { listen: '127.0.0.1:0', unhealthy_after_failures: 1 },
      });
      const partialRuns = (s: Scrape) =>
        value(s.samples, 'helpdesk_sync_runs_total', { job: 'sync', outcome: 'partial' });
      const { result, scrapes } = await runDaemon(path, (s) => partialRuns(s) >= 2);
      expect(result.code).toBe(0);
      expect(scrapes.every((s) => s.health === 200 && s.healthBody.status === 'ok')).toBe(true);
      const last = scrapes.at(-1) as Scrape;
      expect(partialRuns(last)).toBeGreaterThanOrEqual(2);
      for (const outcome of ['succeeded', 'failed']) {
        expect(value(last.samples, 'helpdesk_sync_runs_total', { job: 'sync', outcome }), outcome).toBe(0);
      }
      expect(value(last.samples, 'helpdesk_sync_consecutive_failed_runs')).toBe(0);
      expect(value(last.samples, 'helpdesk_sync_stream_failed', { stream: 'holidays' })).toBe(1);
      expect(value(last.samples, 'helpdesk_sync_stream_failed', { stream: 'conversations' })).toBe(0);
      // A partial run is no success: the staleness alert still sees the failed stream's data age.
      expect(last.samples.some((s) => s.name === 'helpdesk_sync_last_success_timestamp_seconds')).toBe(false);
      // Nothing ever reached the other origin.
      expect(offsite.sandbox.offsite?.received()).toEqual([]);
    } finally {
      await offsite.close();
    }
  });
});
