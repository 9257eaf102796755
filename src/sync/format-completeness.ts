import { formatDuration } from '../format-duration.js';
import { describeExplained } from '../streams/completeness.js';
import type { SyncSummary } from './sync-types.js';

/**
 * The completeness line of the summary, printed by every run: per stream, live
 * of expected, the explained part in brackets, and at the end whether anything
 * is left unexplained. Selected streams without a figure (interrupted,
 * skipped) are named as not measured.
 */
export function completenessLine(summary: SyncSummary): string {
  const parts = summary.completeness.map((f) => {
    const explained = describeExplained(f);
    const unexplained = f.unexplained === 0 ? '' : `${explained ? '; ' : ''}${f.unexplained} unexplained`;
    return `${f.stream} ${f.live}/${f.expected}${explained || unexplained ? ` (${explained}${unexplained})` : ''}`;
  });
  const measured = new Set(summary.completeness.map((f) => f.stream));
  const unmeasured = summary.streams.filter((s) => !measured.has(s));
  if (unmeasured.length > 0) parts.push(`not measured: ${unmeasured.join(', ')}`);
  const missing = summary.completeness.reduce((n, f) => n + Math.max(0, f.unexplained), 0);
  const verdict =
    summary.completeness.length === 0 ? '' : missing > 0 ? ` — INCOMPLETE: ${missing} missing` : ' — nothing missing';
  return `  completeness (live/expected): ${parts.join(', ')}${verdict}`;
}

/** The backfill line: conversations read of the total, and the time left at this run's pace. */
export function backfillLine(summary: SyncSummary): string | undefined {
  const b = summary.backfill;
  if (!b) return undefined;
  if (b.status === 'complete') return `  backfill complete: ${b.done} conversations read`;
  const eta = b.eta_ms === undefined ? '' : `, ~${formatDuration(b.eta_ms)} left at this run's pace`;
  return `  backfill: ${b.done} of ${b.total} conversations read${eta}; the next run goes on`;
}
