import { Gauge, type Registry } from 'prom-client';
import type { BackfillProgress } from '../streams/types.js';
import type { SyncSummary } from '../sync/sync-types.js';

/** The labels that name an account's series: none for a config without `accounts:`, else `account`. */
export type AccountLabels = { account?: string };

/**
 * Per stream (and account), the last finished run's completeness figure
 * (docs/streams.md, "Completeness"): alert on `helpdesk_sync_completeness_unexplained > 0`.
 * A stream that did not finish in a run keeps its previous values.
 */
export function completenessGauges(registry: Registry): (who: AccountLabels, summary: SyncSummary) => void {
  const gauge = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['account', 'stream'] as const, registers: [registry] });
  const expected = gauge(
    'helpdesk_sync_completeness_expected',
    'What the API says exists, per stream, at the last run that measured it (meta.total, list length, report days).',
  );
  const live = gauge('helpdesk_sync_completeness_live', 'Keys the state held as live after that run, per stream.');
  const unexplained = gauge(
    'helpdesk_sync_completeness_unexplained',
    'expected - live - the differences the run explained; > 0: something is missing for no known reason (INCOMPLETE).',
  );
  return (who, summary) => {
    for (const f of summary.completeness) {
      const labels = { ...who, stream: f.stream };
      expected.set(labels, f.expected);
      live.set(labels, f.live);
      unexplained.set(labels, f.unexplained);
    }
  };
}

/**
 * Per stream (and account), whether it failed in the last sync run that selected it (1) or not (0):
 * what a partial run left behind, by name (docs/streams.md, "When a stream fails"). An interrupted
 * run sets only the streams that failed in it: the others may not have run at all.
 */
export function streamFailedGauge(registry: Registry): (who: AccountLabels, summary: SyncSummary) => void {
  const failed = new Gauge({
    name: 'helpdesk_sync_stream_failed',
    help: 'Whether the stream failed in the last sync run that selected it (1) or not (0); the run ended partial.',
    labelNames: ['account', 'stream'] as const,
    registers: [registry],
  });
  return (who, summary) => {
    const names = new Set((summary.failed_streams ?? []).map((f) => f.stream));
    for (const stream of names) failed.set({ ...who, stream }, 1);
    if (summary.status === 'interrupted') return;
    for (const stream of summary.streams ?? []) if (!names.has(stream)) failed.set({ ...who, stream }, 0);
  };
}

/** Where a recent-first backfill stands (per account): conversations read, of how many, and the time left at the run's pace. */
export function backfillGauges(registry: Registry): (who: AccountLabels, progress: BackfillProgress) => void {
  const gauge = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['account'] as const, registers: [registry] });
  const done = gauge(
    'helpdesk_sync_backfill_done',
    'Conversations a recent-first backfill has read (its position in the oldest-first list).',
  );
  const total = gauge(
    'helpdesk_sync_backfill_total',
    'Conversations a recent-first backfill has to read (the listing meta.total).',
  );
  const eta = gauge(
    'helpdesk_sync_backfill_eta_seconds',
    'Seconds a recent-first backfill still needs at the pace of the run that read it last; 0 once complete.',
  );
  return (who, progress) => {
    done.set(who, progress.done);
    total.set(who, progress.total);
    if (progress.status === 'complete') eta.set(who, 0);
    else if (progress.eta_ms !== undefined) eta.set(who, progress.eta_ms / 1000);
  };
}
