import { describe, expect, it } from 'vitest';
import { renderStatusPage } from '../../../src/report/render-status-page.js';
import { runView } from '../../../src/report/status-view.js';
import type { RunHistoryEntry } from '../../../src/state/run-history.js';

const finished = (run_id: string, summary: unknown): RunHistoryEntry => ({
  run_id,
  started_at: '2026-03-10T12:00:00.000Z',
  finished_at: '2026-03-10T12:01:00.000Z',
  status: 'finished',
  summary,
});

const summary = (over: Record<string, unknown> = {}) => ({
  status: 'succeeded',
  duration_ms: 60_000,
  tables: { conversations: { rows: 3, tombstones: 0, rejected: 0 } },
  requests: { requests: 10, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 },
  completeness: [],
  failed_streams: [],
  ...over,
});

describe('the status page of a partial run', () => {
  const partial = finished(
    '20260310T120000Z-pppppp',
    summary({
      status: 'partial',
      failed_streams: [
        { stream: 'holidays', code: 'API_REDIRECT', message: 'GET /v1/holidays answered 302 to another origin' },
        { stream: 'conversations', code: 'API_SERVER', message: 'POST /v1/search failed with status 500' },
        { stream: 'contacts', code: 'API_SERVER', message: 'POST /v1/search failed with status 500' },
      ],
    }),
  );

  it('calls its outcome partial, apart from a run stopped by a signal or one that failed', () => {
    expect(runView(partial).outcome).toBe('partial');
    expect(runView(finished('r2', summary({ status: 'interrupted' }))).outcome).toBe('interrupted');
    expect(runView(finished('r3', summary())).outcome).toBe('succeeded');
    expect(runView({ ...finished('r4', null), status: 'failed' }).outcome).toBe('failed');
  });

  it('names the failed streams with their reason in the last run card and in the run’s row', () => {
    const html = renderStatusPage({
      runs: [partial, finished('20260310T110000Z-ssssss', summary())],
      generatedAt: new Date('2026-03-10T12:05:00Z'),
      source: 'http://127.0.0.1:1/v1',
    });
    const card = /<section class="card" data-card="last-run">(.*?)<\/section>/s.exec(html)?.[1] ?? '';
    expect(card).toContain('<span class="pill partial">partial</span>');
    expect(card).toContain(
      '<p class="failed" data-field="failed-streams">failed: ' +
        '<span data-failed="holidays" title="GET /v1/holidays answered 302 to another origin">holidays (API_REDIRECT)</span>, ' +
        '<span data-failed="conversations,contacts" title="POST /v1/search failed with status 500">conversations, contacts (API_SERVER)</span></p>',
    );
    const row = (id: string) => new RegExp(`<tr data-run="${id}">(.*?)</tr>`, 's').exec(html)?.[1] ?? '';
    expect(row('20260310T120000Z-pppppp')).toContain(
      'data-field="failed-streams">failed: <span data-failed="holidays"',
    );
    expect(row('20260310T110000Z-ssssss')).not.toContain('failed');
  });
});
