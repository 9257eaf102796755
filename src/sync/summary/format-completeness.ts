import type { StreamName } from '../../config/schema.js';
import { formatDuration } from '../../format-duration.js';
import type { CompletenessFigure } from '../../streams/completeness.js';
import type { SyncSummary } from '../sync-types.js';

/**
 * What a stream's figure counts when its name does not say it: `messages` counts
 * threads (one per listed conversation, docs/streams.md "Completeness"), not the
 * message rows the summary's table counts.
 */
export function completenessUnit(stream: StreamName): string | undefined {
  return stream === 'messages' ? 'threads' : undefined;
}

/**
 * The figure's differences in words: `50 past_search_cap`, and for the state
 * holding more than the API counts, `9 more held: never_tombstoned` (a count
 * below zero read as what it is); the unexplained rest last, `3 unexplained` or
 * `2 more held for no known reason`. '' when live equals expected.
 */
export function describeDifference(f: CompletenessFigure): string {
  const explained = f.explained
    .map((e) => (e.count > 0 ? `${e.count} ${e.reason}` : `${-e.count} more held: ${e.reason}`))
    .join(', ');
  const rest =
    f.unexplained > 0
      ? `${f.unexplained} unexplained`
      : f.unexplained < 0
        ? `${-f.unexplained} more held for no known reason`
        : '';
  return explained && rest ? `${explained}; ${rest}` : explained || rest;
}

/** One stream's part of the line: `messages 427/427 threads (8 threads_forbidden)`. */
export function figureWords(f: CompletenessFigure): string {
  const unit = completenessUnit(f.stream);
  const difference = describeDifference(f);
  return `${f.stream} ${f.live}/${f.expected}${unit ? ` ${unit}` : ''}${difference ? ` (${difference})` : ''}`;
}

/**
 * The completeness line of the summary, printed by every run: per stream, live
 * of expected (in its unit when the name does not say it), the differences
 * explained in brackets, and whether anything is missing. "Nothing missing" is
 * said only when every selected stream was measured: a stream without a figure
 * (interrupted, skipped, failed) is named as not measured, and nothing is
 * claimed of it.
 */
export function completenessLine(summary: SyncSummary): string {
  const parts = summary.completeness.map(figureWords);
  const measured = new Set(summary.completeness.map((f) => f.stream));
  const unmeasured = summary.streams.filter((s) => !measured.has(s));
  const missing = summary.completeness.reduce((n, f) => n + Math.max(0, f.unexplained), 0);
  const verdict =
    missing > 0
      ? ` — INCOMPLETE: ${missing} missing`
      : parts.length > 0 && unmeasured.length === 0
        ? ' — nothing missing'
        : '';
  const notMeasured = unmeasured.length > 0 ? `not measured: ${unmeasured.join(', ')}` : '';
  const figures = parts.join(', ');
  const body = figures && notMeasured ? `${figures}${verdict}; ${notMeasured}` : `${figures || notMeasured}${verdict}`;
  return `  completeness (live/expected): ${body}`;
}

/** The backfill line: conversations read of the total, and the time left at this run's pace. */
export function backfillLine(summary: SyncSummary): string | undefined {
  const b = summary.backfill;
  if (!b) return undefined;
  if (b.status === 'complete') return `  backfill complete: ${b.done} conversations read`;
  const eta = b.eta_ms === undefined ? '' : `, ~${formatDuration(b.eta_ms)} left at this run's pace`;
  return `  backfill: ${b.done} of ${b.total} conversations read${eta}; the next run goes on`;
}
